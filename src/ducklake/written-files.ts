// Files an import writes itself, from rows DuckLake keeps in its catalog database (inlined.ts,
// inlined-deletes.ts): where they go, the table they belong to as write-files.ts wants it, and positional
// delete files as DELETE writes them.
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { type CatalogId, type ColumnId, snapshotId } from '../../keys/ids.js';
import { isVisible } from '../../keys/visibility.js';
import { StrataError } from '../errors.js';
import type { ColumnInfo, TableInfo } from '../read/records.js';
import { run } from '../sql/engine.js';
import { literal } from '../sql/sql-text.js';
import { newFilePath, storeFile } from '../sql/write-files.js';
import type { ObjectStore } from '../store/object-store.js';
import { columnTrees, type IdTree } from '../txn/column-specs.js';
import type { Lake, LakeInlinedTable } from './lake.js';
import { randomUUID } from '../random.js';

/** Where the written files go, and the next file id the import may give one. */
export interface InlinedTarget {
  store: ObjectStore;
  dataPath: string;
  nextFileId: () => number;
  /** Every object written, as it is written: a failed import deletes them. */
  created: string[];
}

/** Whether a row of the lake is live at snapshot `at`: the one visibility rule, over the lake's rows. */
export const live = <T extends { begin: number; end: number | null }>(v: T, at: number) => isVisible(v.begin, v.end, at);

export const refuse = (t: Pick<LakeInlinedTable, 'name' | 'tableId'>, problem: string) => new StrataError('INVALID_ARGUMENT', `${t.name} (the inlined rows of table ${t.tableId}): ${problem}`);

/** The table as it was at snapshot `at`: its name, its schema's, and its columns as trees (write-files needs them). */
export function tableAt(lake: Lake, t: Pick<LakeInlinedTable, 'name' | 'tableId'>, at: number): { schema: string; info: TableInfo } {
  const table = lake.tables.find((x) => x.id === t.tableId && live(x, at));
  if (table === undefined) throw refuse(t, `rows are inserted at snapshot ${at}, where table ${t.tableId} does not exist`);
  const schema = lake.schemas.find((x) => x.id === table.schemaId && live(x, at));
  if (schema === undefined) throw refuse(t, `table ${t.tableId} is in schema ${table.schemaId}, which does not exist at snapshot ${at}`);
  const cols = lake.columns.filter((c) => c.tableId === t.tableId && live(c, at));
  // Checked as createTable checks columns (and as the import checks them again where they are applied).
  let trees: IdTree[];
  try {
    trees = columnTrees(cols.map((c) => ({ id: c.id, parentColumn: c.parent, order: c.order, name: c.name, type: c.type, nullsAllowed: c.nullsAllowed, defaultValue: null })));
  } catch (e) {
    throw e instanceof StrataError ? refuse(t, `table ${t.tableId} at snapshot ${at}: ${e.message}`) : e;
  }
  const info = (x: IdTree): ColumnInfo => ({ id: x.id as ColumnId, name: x.row.name, type: x.row.type, order: x.row.order, nullsAllowed: x.row.nullsAllowed, defaultValue: null, ...(x.children.length > 0 ? { children: x.children.map(info) } : {}) });
  return { schema: schema.name, info: { id: t.tableId as CatalogId, name: table.name, schemaId: table.schemaId as CatalogId, uuid: table.uuid, beginSnapshot: snapshotId(table.begin), columns: trees.map(info) } };
}

/** A positional delete file of `dataPath` (its path under the data path), as DELETE writes one: file_path and pos. */
export async function writeDeleteFile(c: DuckDBConnection, target: InlinedTarget, to: Parameters<typeof newFilePath>[0], dataPath: string, positions: readonly number[]) {
  const local = path.join(tmpdir(), `strata-import-delete-${randomUUID()}.parquet`);
  try {
    await run(() => c.run(`COPY (SELECT ${literal(dataPath)} AS file_path, pos::BIGINT AS pos FROM (VALUES ${positions.map((p) => `(${p})`).join(', ')}) t(pos) ORDER BY pos) TO ${literal(local)} (FORMAT parquet)`));
    const rel = newFilePath(to, '-deletes');
    const stored = await storeFile({ store: target.store, dataPath: target.dataPath }, local, rel);
    target.created.push(`${target.dataPath}${rel}`);
    return { path: rel, ...stored };
  } finally {
    await rm(local, { force: true });
  }
}

