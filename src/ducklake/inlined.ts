// DuckLake keeps small inserts in its catalog database instead of a Parquet file (ducklake_inlined_data_<table>
// _<schema version>: each row with its row id, the snapshot that inserted it and the one that deleted it).
// Strata's tables are files, so the import writes each insert's rows as a data file — Parquet with field ids,
// through write-files.ts as every insert is written, carrying the rows' ids — registered at the insert's
// snapshot; a later snapshot that deletes some of them adds a positional delete file (cumulative, as DELETE
// writes one), and the one that deletes the last of them, or drops the table, ends the file. A reader then
// counts, at every snapshot, the rows DuckLake would. Deletes DuckLake keeps inline against a data file are
// folded into its delete files (inlined-deletes.ts).
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CatalogId, FileId } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import type { ColumnInfo } from '../read/records.js';
import { duckType } from '../sql/duck-types.js';
import { run, type Session } from '../sql/engine.js';
import { withImportDuckDB } from './import-sql.js';
import { ident } from '../sql/sql-text.js';
import { ROW_ID_COLUMN } from '../sql/table-scan.js';
import { DEFAULT_TARGET_FILE_SIZE, type newFilePath, writeDataFiles } from '../sql/write-files.js';
import type { ExtraFiles } from './deltas.js';
import type { RelativePath } from './files.js';
import { inlinedDeletes } from './inlined-deletes.js';
import type { Lake, LakeInlinedTable } from './lake.js';
import { type InlinedTarget, refuse, tableAt, writeDeleteFile } from './written-files.js';
import { randomUUID } from '../random.js';

/**
 * The rows of every inlined table as data and delete files, at the snapshots they belong to, and the deletes
 * kept inline against data files as delete files (inlined-deletes.ts): the lake with those folded in (its
 * delete files they replace left out), and the files the import wrote.
 */
export async function inlinedFiles(lake: Lake, target: InlinedTarget, rel: RelativePath): Promise<{ lake: Lake; extra: ExtraFiles[] }> {
  const inserts = lake.inlined.flatMap((t) => insertsOf(t));
  if (inserts.length === 0 && lake.inlinedDeletes.length === 0) return { lake, extra: [] };
  return withImportDuckDB(async (c, session) => {
    const out: ExtraFiles[] = [];
    for (const insert of inserts) out.push(...(await writeInsert(c, session, lake, target, insert)));
    const folded = await inlinedDeletes(c, lake, target, rel);
    return { lake: folded.lake, extra: [...out, ...folded.extra] };
  });
}

interface Insert {
  table: LakeInlinedTable;
  begin: number;
  rows: LakeInlinedTable['rows'];
}

/** An inlined table's rows by the snapshot that inserted them, each insert in row id order; a row id names one row. */
function insertsOf(t: LakeInlinedTable): Insert[] {
  const by = new Map<number, LakeInlinedTable['rows']>();
  const ids = new Set<number>();
  for (const r of t.rows) {
    if (ids.has(r.rowId)) throw refuse(t, `row id ${r.rowId} names two rows`);
    ids.add(r.rowId);
    (by.get(r.begin) ?? by.set(r.begin, []).get(r.begin)!).push(r);
  }
  return [...by].sort((a, b) => a[0] - b[0]).map(([begin, rows]) => ({ table: t, begin, rows: rows.sort((a, b) => a.rowId - b.rowId) }));
}

/** The snapshot the table is dropped at after `from` (a version ends with none beginning there), if it is. */
function droppedAfter(lake: Lake, tableId: number, from: number): number | undefined {
  const versions = lake.tables.filter((x) => x.id === tableId);
  return versions.find((v) => v.end !== null && v.end > from && !versions.some((w) => w.begin === v.end))?.end ?? undefined;
}

/** SQLite's value as DuckDB's text for it (DuckLake's SQLite catalog keeps what SQLite has no type for as text). */
function asText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint' || typeof v === 'number') return String(v);
  if (typeof v === 'string') return v;
  return null;
}

/** Writes one insert's rows as a data file, and the delete files (or the end) its later deletes make. */
async function writeInsert(c: DuckDBConnection, session: Session, lake: Lake, target: InlinedTarget, insert: Insert): Promise<ExtraFiles[]> {
  const { table: t, begin, rows } = insert;
  const { schema, info } = tableAt(lake, t, begin);
  const top = info.columns;
  for (const name of t.columns) if (!top.some((col) => col.name === name)) throw refuse(t, `its column ${JSON.stringify(name)} is not a column of table ${t.tableId} at snapshot ${begin}, where its rows are inserted`);
  const source = `__strata_inlined_${randomUUID().replaceAll('-', '')}`;
  const blob = (col: ColumnInfo) => col.type === 'blob';
  await run(() => c.run(`CREATE TABLE ${source} (rid BIGINT, ${top.map((col, i) => `c${i} ${blob(col) ? 'BLOB' : 'VARCHAR'}`).join(', ')})`));
  try {
    const appender = await c.createAppender(source);
    for (const r of rows) {
      appender.appendBigInt(BigInt(r.rowId));
      top.forEach((col) => {
        const at = t.columns.indexOf(col.name);
        const v = at < 0 ? null : r.values[at];
        if (v === null || v === undefined) appender.appendNull();
        else if (blob(col)) {
          if (!(v instanceof Uint8Array)) throw refuse(t, `row ${r.rowId}'s ${JSON.stringify(col.name)} is not a blob`);
          appender.appendBlob(v);
        } else appender.appendVarchar(asText(v) ?? String(v));
      });
      appender.endRow();
    }
    appender.closeSync();
    const select = `SELECT ${top.map((col, i) => `CAST(c${i} AS ${duckType(col)}) AS ${ident(col.name)}`).join(', ')}, rid AS ${ident(ROW_ID_COLUMN)} FROM ${source} ORDER BY rid`;
    const ctx = { store: target.store, dataPath: target.dataPath, engine: session };
    const to = { schema, table: info.name, info, targetFileSize: DEFAULT_TARGET_FILE_SIZE, onProgress: undefined, message: '' };
    const specs = await writeDataFiles(ctx, c, to, select, true).catch((e: unknown) => {
      throw e instanceof StrataError ? refuse(t, `its rows inserted at snapshot ${begin} do not read as the table's columns: ${e.message}`) : e;
    });
    for (const s of specs) target.created.push(`${target.dataPath}${s.path}`);
    if (specs.length !== 1) throw refuse(t, `the rows inserted at snapshot ${begin} made ${specs.length} files; one was expected`);
    return await lifeOfFile(c, lake, target, { t, tableId: info.id, begin, rows, spec: specs[0]!, to });
  } finally {
    await run(() => c.run(`DROP TABLE IF EXISTS ${source}`));
  }
}

/**
 * The data file of one insert, registered at its snapshot, then each later snapshot that deletes some of its
 * rows: a delete file of every position deleted by then (replacing the one before), or the file's end once
 * none is left — at the latest where the table is dropped.
 */
async function lifeOfFile(
  c: DuckDBConnection,
  lake: Lake,
  target: InlinedTarget,
  f: { t: LakeInlinedTable; tableId: CatalogId; begin: number; rows: Insert['rows']; spec: Awaited<ReturnType<typeof writeDataFiles>>[number]; to: Parameters<typeof newFilePath>[0] },
): Promise<ExtraFiles[]> {
  const fileId = target.nextFileId() as FileId;
  const rowIds = f.rows.map((r) => r.rowId);
  const out: ExtraFiles[] = [{ at: f.begin, dataFiles: [{ tableId: f.tableId, id: fileId, ends: false, next: { ...f.spec, rowIdStart: rowIds[0]!, rowIdEnd: rowIds.at(-1)! + 1 } }], deleteFiles: [] }];
  const dropped = droppedAfter(lake, f.tableId, f.begin);
  const ends = f.rows.map((r) => (r.end === null ? dropped ?? null : dropped === undefined ? r.end : Math.min(r.end, dropped)));
  const at = [...new Set(ends.filter((e): e is number => e !== null))].sort((a, b) => a - b);
  let previous: FileId | undefined;
  for (const e of at) {
    const positions = ends.flatMap((end, i) => (end !== null && end <= e ? [i] : []));
    const ending = previous === undefined ? [] : [{ tableId: f.tableId, id: previous, ends: true, next: null, recordOnly: false }];
    if (positions.length === f.rows.length) {
      out.push({ at: e, dataFiles: [{ tableId: f.tableId, id: fileId, ends: true, next: null }], deleteFiles: ending });
      break;
    }
    const id = target.nextFileId() as FileId;
    const written = await writeDeleteFile(c, target, f.to, f.spec.path, positions);
    out.push({ at: e, dataFiles: [], deleteFiles: [...ending, { tableId: f.tableId, id, ends: false, next: { dataFileId: fileId, ...written, deleteCount: positions.length }, recordOnly: false }] });
    previous = id;
  }
  return out;
}
