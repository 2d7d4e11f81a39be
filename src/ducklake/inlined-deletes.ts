// DuckLake deletes a few rows of a data file without writing a delete file: it keeps their positions in its
// catalog (ducklake_inlined_delete_<table>: file id, position, the snapshot that deleted it), and a reader at
// snapshot S applies them on top of the file's delete file, as a union. Strata applies one delete file per data
// file, holding every position deleted by then (cumulative, as DELETE writes one), so the import folds them:
// from the first inlined delete of a file on, at each snapshot its deletes change, it writes a delete file of
// the union — the lake's delete file live then, read from the store, with the positions deleted inline by then —
// and the lake's delete files of that file from then on are left out (their positions are in the union).
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CatalogId, FileId } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import { run } from '../sql/engine.js';
import { literal } from '../sql/sql-text.js';
import type { ExtraFiles } from './deltas.js';
import type { RelativePath } from './files.js';
import { type InlinedTarget, live, tableAt, writeDeleteFile } from './written-files.js';
import type { Lake, LakeDataFile, LakeDeleteFile } from './lake.js';
import { randomUUID } from '../random.js';

/** The positions a delete file of the lake holds, read from the store the import placed it in. */
async function positionsOf(c: DuckDBConnection, target: InlinedTarget, rel: RelativePath, d: LakeDeleteFile): Promise<number[]> {
  const key = `${target.dataPath}${rel(d, `delete file ${d.id}`)}`;
  const bytes = await target.store.get(key);
  if (bytes === undefined) throw new StrataError('NOT_FOUND', `delete file ${d.id} is not in ${target.store.description} at ${key}`);
  const local = path.join(tmpdir(), `strata-import-positions-${randomUUID()}.parquet`);
  try {
    await writeFile(local, bytes);
    const rows = (await run(() => c.runAndReadAll(`SELECT pos FROM read_parquet(${literal(local)})`))).getRowObjectsJS() as { pos: bigint }[];
    return rows.map((r) => Number(r.pos));
  } finally {
    await rm(local, { force: true });
  }
}

const refuse = (tableId: number, problem: string) => new StrataError('INVALID_ARGUMENT', `ducklake_inlined_delete_${tableId}: ${problem}`);

/** The lake with its inlined deletes folded into delete files the import wrote, and those files. */
export async function inlinedDeletes(c: DuckDBConnection, lake: Lake, target: InlinedTarget, rel: RelativePath): Promise<{ lake: Lake; extra: ExtraFiles[] }> {
  const byFile = new Map<number, Lake['inlinedDeletes']>();
  for (const d of lake.inlinedDeletes) (byFile.get(d.dataFileId) ?? byFile.set(d.dataFileId, []).get(d.dataFileId)!).push(d);
  const extra: ExtraFiles[] = [];
  const replaced = new Set<number>();
  const endAt = new Map<number, number>();
  for (const [fileId, deletes] of byFile) {
    const tableId = deletes[0]!.tableId;
    const f = lake.dataFiles.find((x) => x.id === fileId);
    if (f === undefined || f.tableId !== tableId) throw refuse(tableId, `it deletes rows of data file ${fileId}, which is not a data file of table ${tableId}`);
    const seen = new Set<number>();
    for (const d of deletes) {
      if (!live(f, d.begin)) throw refuse(tableId, `it deletes position ${d.position} of data file ${fileId} at snapshot ${d.begin}, where the file is not live`);
      if (d.position >= f.recordCount) throw refuse(tableId, `it deletes position ${d.position} of data file ${fileId}, which has ${f.recordCount} rows`);
      if (seen.has(d.position)) throw refuse(tableId, `it deletes position ${d.position} of data file ${fileId} twice`);
      seen.add(d.position);
    }
    const first = Math.min(...deletes.map((d) => d.begin));
    const files = lake.deleteFiles.filter((d) => d.dataFileId === fileId);
    // The lake's delete file live where inline deletes begin ends there; those after are folded into ours.
    for (const d of files) {
      if (d.begin >= first) replaced.add(d.id);
      else if (live(d, first)) endAt.set(d.id, first);
    }
    const changes = [...new Set([...deletes.map((d) => d.begin), ...files.flatMap((d) => [d.begin, d.end ?? first]).filter((s) => s > first)])]
      .filter((s) => s >= first && live(f, s))
      .sort((a, b) => a - b);
    extra.push(...(await folded(c, lake, target, rel, f, deletes, files, changes)));
  }
  return {
    lake: { ...lake, deleteFiles: lake.deleteFiles.filter((d) => !replaced.has(d.id)).map((d) => (endAt.has(d.id) ? { ...d, end: endAt.get(d.id)! } : d)) },
    extra,
  };
}

/** At each snapshot in `changes`: a delete file of the union, replacing the one before; ended with its data file. */
async function folded(
  c: DuckDBConnection,
  lake: Lake,
  target: InlinedTarget,
  rel: RelativePath,
  f: LakeDataFile,
  deletes: Lake['inlinedDeletes'],
  files: readonly LakeDeleteFile[],
  changes: readonly number[],
): Promise<ExtraFiles[]> {
  const out: ExtraFiles[] = [];
  const tableId = f.tableId as CatalogId;
  const dataPath = rel(f, `data file ${f.id}`);
  let previous: FileId | undefined;
  const ending = () => (previous === undefined ? [] : [{ tableId, id: previous, ends: true, next: null, recordOnly: false }]);
  for (const at of changes) {
    const current = files.find((d) => live(d, at));
    const positions = new Set(current === undefined ? [] : await positionsOf(c, target, rel, current));
    for (const d of deletes) if (d.begin <= at) positions.add(d.position);
    const { schema, info } = tableAt(lake, { name: `ducklake_inlined_delete_${tableId}`, tableId }, at);
    const written = await writeDeleteFile(c, target, { schema, table: info.name, info }, dataPath, [...positions].sort((a, b) => a - b));
    const id = target.nextFileId() as FileId;
    out.push({ at, dataFiles: [], deleteFiles: [...ending(), { tableId, id, ends: false, next: { dataFileId: f.id, ...written, deleteCount: positions.size }, recordOnly: false }] });
    previous = id;
  }
  if (f.end !== null && previous !== undefined) out.push({ at: f.end, dataFiles: [], deleteFiles: ending() });
  return out;
}
