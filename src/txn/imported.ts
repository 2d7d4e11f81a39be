// One snapshot of an imported lake as pending changes: the versions it begins and the versions it ends, with
// the lake's ids, put through the checks the API makes — a name is a name (checkName), a file a file
// (checkedDataFile, checkedDeleteFile), a view a view (the transaction's own check), statistics name live
// columns — and, once the snapshot is applied, what every transaction keeps true: each name used once among
// live objects, a table in a live schema, columns that form trees of known types, a delete file of a live data
// file of its own table and only one live per data file, nothing live under what the snapshot dropped. A lake
// that breaks any of them is INVALID_ARGUMENT naming the row. Applied by a transaction on a catalog the
// import made and nobody else writes (importDuckLake), committed at the lake's own snapshot id.
import type { ColumnRow } from '../../keys/columns.js';
import { nestedType } from '../../keys/column-types.js';
import type { CatalogId, ColumnId, FileId, SnapshotId } from '../../keys/ids.js';
import type { NameMapping } from '../../keys/name-mappings.js';
import type { RelationKind } from '../../keys/relations.js';
import { checkColumnType, checkName } from '../arguments.js';
import { StrataError } from '../errors.js';
import { quote } from '../messages.js';
import * as q from '../read/catalog-queries.js';
import { dataFile, deleteFile } from '../read/file-listing.js';
import type { Change, Row } from './change.js';
import { columnTrees } from './column-specs.js';
import type { EntityRows, FileChange, PendingCatalog } from './pending.js';
import { invalid } from './refusals.js';
import { checkDeleteCount, checkedColumnStats, checkedDataFile, checkedDeleteFile, type DataFileSpec, type DeleteFileSpec } from './file-specs.js';

/** One entity a snapshot touches: whether it ends the version live before it, and the version it begins. */
export interface Imported<Id, T> {
  id: Id;
  ends: boolean;
  next: T | null;
}

export interface ImportedSnapshot {
  /** The lake's snapshot id: the commit takes it, past ids the lake does not hold. */
  id: SnapshotId;
  schemas: Imported<CatalogId, { name: string; uuid: string }>[];
  tables: Imported<CatalogId, { schemaId: CatalogId; name: string; uuid: string }>[];
  views: Imported<CatalogId, { schemaId: CatalogId; name: string; uuid: string; sql: string; dialect: string }>[];
  columns: (Imported<ColumnId, Row<ColumnRow>> & { tableId: CatalogId })[];
  /**
   * `rowIdStart` null: the table's next row id, as addDataFile gives it. `rowIdEnd`: the row id after the
   * file's last, when the file carries its rows' ids and they are not `rowIdStart` on (default: start + count).
   */
  dataFiles: (Imported<FileId, DataFileSpec & { rowIdStart: number | null; rowIdEnd?: number; mapping?: NameMapping }> & { tableId: CatalogId })[];
  /** `recordOnly`: written and retired at this snapshot with its data file, visible at none (as addDeleteFile records a delete of every row). */
  deleteFiles: (Imported<FileId, DeleteFileSpec> & { tableId: CatalogId; recordOnly: boolean })[];
  /** The lake's counters after the snapshot; the commit's stay above every id it holds too. */
  nextCatalogId: number;
  nextFileId: number;
  /** The tables its changes_made says a restore changed (restored_table, Strata's word): its plan says so again. */
  restoredTables: CatalogId[];
}

/** What applying a snapshot needs of the transaction: its own checks of a view and of a column, and the store's path limit. */
export interface ImportChecks {
  view(schema: string, name: string, sql: string, dialect: string): Promise<{ sql: string; dialect: string }>;
  /** A column's row checked as the API checks a column it adds (its default a value of its type). */
  column(row: { name: string; type: string; defaultValue: string | null }): Promise<void>;
  maxPathBytes: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Runs `fn`, naming the lake's row in any refusal. */
async function about<T>(what: string, at: SnapshotId, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof StrataError)) throw e;
    throw new StrataError(e.code === 'NOT_FOUND' || e.code === 'ALREADY_EXISTS' ? 'INVALID_ARGUMENT' : e.code, `the lake's ${what} at snapshot ${at}: ${e.message}`, { cause: e });
  }
}

const refuse = (what: string, at: SnapshotId, problem: string) => invalid(`the lake's ${what} at snapshot ${at}: ${problem}`);

/**
 * Applies `s` to the transaction's pending state: ends what it ends, begins what it begins (a rename is both),
 * checking each row as the API would and the state it leaves as every commit keeps it.
 */
export async function applyImported(p: PendingCatalog, s: ImportedSnapshot, checks: ImportChecks): Promise<void> {
  if (s.id <= p.base) throw invalid(`the lake's snapshot ${s.id} comes after snapshot ${p.base} of the import, which is its newest; snapshots are imported in order`);
  await versions(p, s.id, 'schema', s.schemas, (r) => {
    checkName('schema name', r.name);
    checkUuid(r.uuid);
    return r;
  });
  await versions(p, s.id, 'table', s.tables, (r) => {
    checkName('table name', r.name);
    checkUuid(r.uuid);
    return r;
  });
  await versions(p, s.id, 'view', s.views, async (r) => {
    checkUuid(r.uuid);
    const schema = (await p.loadSchema(r.schemaId)).next?.name ?? `(schema ${r.schemaId})`;
    return { schemaId: r.schemaId, name: r.name, uuid: r.uuid, ...(await checks.view(schema, r.name, r.sql, r.dialect)) };
  });
  const touchedTables = new Set<CatalogId>([...s.tables.map((t) => t.id), ...s.columns.map((c) => c.tableId)]);
  for (const c of s.columns) await applyColumn(p, s.id, c, checks);
  for (const x of s.schemas) await about(`schema ${x.id}`, s.id, () => schemaStands(p, x.id));
  for (const [kind, list] of [['table', s.tables], ['view', s.views]] as const) {
    for (const x of list) await about(`${kind} ${x.id}`, s.id, () => relationStands(p, kind, x.id));
  }
  for (const t of touchedTables) await about(`table ${t}`, s.id, () => columnsStand(p, t));
  for (const f of s.dataFiles) await applyDataFile(p, s.id, f, checks.maxPathBytes);
  for (const d of s.deleteFiles) await applyDeleteFile(p, s.id, d, checks.maxPathBytes);
  await filesStand(p, s);
  const maxId = (ids: readonly { id: number }[]) => ids.reduce((m, x) => Math.max(m, x.id + 1), 0);
  p.raiseCounters(
    Math.max(s.nextCatalogId, maxId(s.schemas), maxId(s.tables), maxId(s.views)),
    Math.max(s.nextFileId, maxId(s.dataFiles), maxId(s.deleteFiles)),
  );
  for (const t of s.restoredTables) p.restored(t);
  p.importAs(s.id);
}

function checkUuid(uuid: string): void {
  if (!UUID.test(uuid)) throw invalid(`uuid ${JSON.stringify(uuid)} is not a UUID`);
}

/** Ends and begins versions of schemas, tables or views: an end of what is live, a begin of what is not. */
async function versions<K extends q.EntityKind, R>(
  p: PendingCatalog,
  at: SnapshotId,
  what: K,
  list: readonly Imported<CatalogId, R>[],
  check: (row: R) => Row<EntityRows[K]> | Promise<Row<EntityRows[K]>>,
): Promise<void> {
  const seen = new Set<CatalogId>();
  for (const { id, ends, next } of list) {
    if (seen.has(id)) throw refuse(`${what} ${id}`, at, 'two versions of it begin or end at this snapshot');
    seen.add(id);
    const c = await p.load(what, id);
    if (ends && c.base === undefined) throw refuse(`${what} ${id}`, at, `it ends here, but is not live at snapshot ${p.base}`);
    if (!ends && c.base !== undefined) throw refuse(`${what} ${id}`, at, `a version begins here while its version from snapshot ${c.base.begin} is live (two versions of one ${what} overlap)`);
    p.replaceEntity(what, id, next === null ? null : await about(`${what} ${id}`, at, () => check(next)));
  }
}

/** A schema that stands after the snapshot: its name used once; one it dropped holds no live table or view. */
async function schemaStands(p: PendingCatalog, id: CatalogId): Promise<void> {
  const next = (await p.loadSchema(id)).next;
  if (next === null) {
    const left = [...(await p.relations(id)).keys()];
    if (left.length > 0) throw invalid(`it is dropped here, but ${left.map((n) => quote(n)).join(', ')} in it stay live`);
    return;
  }
  for (const [other, c] of p.schemas) if (other !== id && c.next?.name === next.name) throw invalid(`schema ${other} is called ${quote(next.name)} too`);
  const owner = await q.schemaIdByName(p.view, p.base, next.name);
  if (owner !== undefined && owner !== id && (await p.loadSchema(owner)).next?.name === next.name) throw invalid(`schema ${owner} is called ${quote(next.name)} too`);
}

/** A table or view that stands after the snapshot: in a live schema, its name used once in it. */
async function relationStands(p: PendingCatalog, kind: RelationKind, id: CatalogId): Promise<void> {
  const next = (kind === 'table' ? await p.loadTable(id) : await p.loadView(id)).next;
  if (next === null) return;
  if ((await p.loadSchema(next.schemaId)).next === null) throw invalid(`it is in schema ${next.schemaId}, which does not exist at this snapshot`);
  const same = (k: RelationKind, other: CatalogId, c: Change<{ schemaId: CatalogId; name: string; end: SnapshotId | null }>) =>
    !(k === kind && other === id) && c.next?.schemaId === next.schemaId && c.next.name === next.name;
  for (const [k, map] of [['table', p.tables], ['view', p.views]] as const) {
    for (const [other, c] of map) if (same(k, other, c)) throw invalid(`${k} ${other} is called ${quote(next.name)} in the same schema`);
  }
  const owner = await q.relationByName(p.view, p.base, next.schemaId, next.name);
  if (owner === undefined) return;
  const c = owner.kind === 'table' ? await p.loadTable(owner.id) : await p.loadView(owner.id);
  if (same(owner.kind, owner.id, c)) throw invalid(`${owner.kind} ${owner.id} is called ${quote(next.name)} in the same schema`);
}

async function applyColumn(p: PendingCatalog, at: SnapshotId, c: ImportedSnapshot['columns'][number], checks: ImportChecks): Promise<void> {
  const what = `column ${c.id} of table ${c.tableId}`;
  const cols = await p.loadColumns(c.tableId);
  const change = cols.changes.get(c.id);
  const live = change !== undefined && change.base !== undefined && change.next !== null;
  if (change !== undefined && change.base === undefined && change.next !== null) throw refuse(what, at, 'two versions of it begin at this snapshot');
  if (c.ends && !live) throw refuse(what, at, `it ends here, but is not live at snapshot ${p.base}`);
  if (!c.ends && live) throw refuse(what, at, `a version begins here while its version from snapshot ${change.base!.begin} is live (two versions of one column overlap)`);
  const next = c.next === null ? null : await about(what, at, () => ({ ...c.next!, name: checkName('column name', c.next!.name), type: nestedType(c.next!.type) ?? checkColumnType(`type of column ${quote(c.next!.name)}`, c.next!.type) }));
  if (next !== null) await about(what, at, () => checks.column(next));
  p.replaceColumn(c.tableId, c.id, next);
}

/** A table's columns after the snapshot: a live table's are what createTable takes (columnTrees); a dropped table keeps none live. */
async function columnsStand(p: PendingCatalog, tableId: CatalogId): Promise<void> {
  const table = (await p.loadTable(tableId)).next;
  const cols = await p.loadColumns(tableId);
  const live = [...cols.changes].filter(([, c]) => c.next !== null) as [ColumnId, Change<ColumnRow> & { next: Row<ColumnRow> }][];
  if (table === null) {
    if (live.length > 0) throw invalid(`it does not exist here, but its column ${quote(live[0]![1].next.name)} (id ${live[0]![0]}) is live`);
    return;
  }
  columnTrees(live.map(([id, c]) => ({ id, ...c.next })));
}

/** The ids of a table's live columns after the snapshot, for statistics that name them. */
async function liveColumnIds(p: PendingCatalog, tableId: CatalogId): Promise<Set<number>> {
  return new Set([...(await p.loadColumns(tableId)).changes].filter(([, c]) => c.next !== null).map(([id]) => id as number));
}

async function applyDataFile(p: PendingCatalog, at: SnapshotId, f: ImportedSnapshot['dataFiles'][number], maxPathBytes: number): Promise<void> {
  const what = `data file ${f.id} of table ${f.tableId}`;
  if (p.dataFiles.has(f.id)) throw refuse(what, at, 'two versions of it begin or end at this snapshot');
  if (f.ends && f.next !== null) throw refuse(what, at, 'it ends and begins again here; a data file is written once');
  if (f.ends) {
    const base = await dataFile(p.view, f.tableId, f.id);
    if (base === undefined || base.row.end !== null) throw refuse(what, at, `it ends here, but is not a live data file of table ${f.tableId} at snapshot ${p.base}`);
    p.endImportedFile('data', f.tableId, f.id, base);
    return;
  }
  const spec = f.next!;
  await about(what, at, async () => {
    const { rowIdStart, rowIdEnd, columnStats, mapping, ...given } = spec;
    const row = checkedDataFile(given, maxPathBytes);
    if ((await p.loadTable(f.tableId)).next === null) throw invalid(`table ${f.tableId} does not exist at this snapshot`);
    const stats = columnStats === undefined ? undefined : checkedColumnStats(`table ${f.tableId}`, await liveColumnIds(p, f.tableId), columnStats, row.recordCount);
    const next = await p.nextRowId(f.tableId);
    const first = rowIdStart ?? next;
    // A file without field ids is read by name: its mapping (checked against the file by the import) goes with it.
    p.addDataFile(f.id, f.tableId, { ...row, rowIdStart: first, ...(mapping === undefined ? {} : { mappingId: mapping.mappingId }) }, {
      ...(mapping === undefined ? {} : { mapping }),
      ...(stats !== undefined && stats.length > 0 ? { stats } : {}),
      ...(rowIdEnd === undefined ? {} : { rowIdEnd }),
    });
  });
}

async function applyDeleteFile(p: PendingCatalog, at: SnapshotId, d: ImportedSnapshot['deleteFiles'][number], maxPathBytes: number): Promise<void> {
  const what = `delete file ${d.id} of table ${d.tableId}`;
  if (p.deleteFiles.has(d.id) && (p.deleteFiles.get(d.id)!.base === undefined || d.ends)) throw refuse(what, at, 'two versions of it begin or end at this snapshot');
  if (d.ends && d.next !== null) throw refuse(what, at, 'it ends and begins again here; a delete file is written once');
  if (d.ends) {
    const base = await deleteFile(p.view, d.tableId, d.id);
    if (base === undefined || base.row.end !== null) throw refuse(what, at, `it ends here, but is not a live delete file of table ${d.tableId} at snapshot ${p.base}`);
    p.endImportedFile('delete', d.tableId, d.id, base);
    return;
  }
  const spec = d.next!;
  await about(what, at, async () => {
    const row = checkedDeleteFile(spec, maxPathBytes);
    if ((await p.loadTable(d.tableId)).next === null) throw invalid(`table ${d.tableId} does not exist at this snapshot`);
    const dataFileId = spec.dataFileId as FileId;
    const data = await dataFileAfter(p, d.tableId, dataFileId);
    const records = data?.base?.row.recordCount ?? data?.next?.recordCount;
    if (data === undefined || records === undefined) throw invalid(`its data file ${dataFileId} is not a data file of table ${d.tableId}`);
    checkDeleteCount(row.deleteCount, dataFileId, records);
    // A delete of every row retires its data file in the same commit and is only recorded (addDeleteFile).
    if (d.recordOnly ? !(data.base !== undefined && data.next === null) : data.next === null) {
      throw invalid(d.recordOnly ? `it begins and ends here, which only a delete file retiring its data file does, and data file ${dataFileId} does not end here` : `its data file ${dataFileId} is not live at this snapshot`);
    }
    p.addDeleteFile(d.id, d.tableId, { ...row, dataFileId }, d.recordOnly);
  });
}

/** A data file of the table as the snapshot leaves it (its change, or its version at the base), if it is one. */
async function dataFileAfter(p: PendingCatalog, tableId: CatalogId, id: FileId): Promise<FileChange<{ recordCount: number }> | undefined> {
  const c = p.dataFiles.get(id);
  if (c !== undefined) return c.tableId === tableId ? c : undefined;
  const base = await dataFile(p.view, tableId, id);
  return base === undefined || base.row.end !== null ? undefined : { tableId, base, next: base.row };
}

/**
 * The files as the snapshot leaves them: one live delete file per data file (delete files are cumulative),
 * none of a data file that ended, and nothing live of a table that was dropped.
 */
async function filesStand(p: PendingCatalog, s: ImportedSnapshot): Promise<void> {
  const tables = new Set<CatalogId>([...s.deleteFiles.map((d) => d.tableId), ...s.dataFiles.filter((f) => f.ends).map((f) => f.tableId)]);
  for (const t of s.tables) if ((await p.loadTable(t.id)).next === null) tables.add(t.id);
  for (const tableId of tables) {
    const dropped = (await p.loadTable(tableId)).next === null;
    if (dropped) await p.loadDataFiles(tableId);
    await p.loadDeleteFiles(tableId);
    const holder = new Map<FileId, FileId>();
    for (const [id, d] of p.deleteFiles) {
      if (d.tableId !== tableId || d.next === null || d.endsAtCommit) continue;
      const where = `delete file ${id} of table ${tableId}`;
      if (dropped) throw refuse(where, s.id, `table ${tableId} is dropped here, and it stays live`);
      const other = holder.get(d.next.dataFileId);
      if (other !== undefined) throw refuse(where, s.id, `delete file ${other} of the same data file ${d.next.dataFileId} is live too; delete files are cumulative, each replacing the one before`);
      holder.set(d.next.dataFileId, id);
      if (p.dataFiles.get(d.next.dataFileId)?.next === null) throw refuse(where, s.id, `its data file ${d.next.dataFileId} ends here, and it stays live`);
    }
    if (!dropped) continue;
    for (const [id, f] of p.dataFiles) if (f.tableId === tableId && f.next !== null) throw refuse(`data file ${id} of table ${tableId}`, s.id, `table ${tableId} is dropped here, and it stays live`);
  }
}

