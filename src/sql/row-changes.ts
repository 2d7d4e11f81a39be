// The rows a table gained and lost between two snapshots, as DuckLake's table_changes gives them: for each
// snapshot in [from, to] (both inclusive), the rows of the data files it added (less any it deleted at
// once), the rows its delete files newly deleted (each delete file holds every deleted row of its data
// file, so new = its positions less those of the one before), and the rows of the data files it ended
// (less those deleted before). Each row carries its id (carried in its file, else row_id_start + position):
// a row deleted and inserted under one id in one snapshot is an update, its old values the preimage and its
// new ones the postimage. Maintenance commits (compaction) are skipped: they move rows, they change none.
// Columns are the table's at `to`, read by field id from every file.
import type { DuckDBConnection } from '@duckdb/node-api';
import { append } from '../../keys/mutation.js';
import type { FileId, SnapshotId } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import type { TableChanges } from '../read/history.js';
import type { Reader } from '../read/reader.js';
import type { DataFileInfo, DeleteFileInfo } from '../read/records.js';
import type { SnapshotSelector } from '../read/resolve-snapshot.js';
import { recordedFile } from './local-files.js';
import { StatementFiles } from './statement-files.js';
import type { PlaneContext, SqlResult } from './query.js';
import { ident, literal } from './sql-text.js';
import { POSITION, tableScan, typedNulls } from './table-scan.js';
import { streamRows } from './values.js';

/** A bound of the range: a snapshot id, a time (Date or ISO-8601), or { tag }. */
export type ChangeBound = number | Date | string | { tag: string };

export interface RowChangesContext extends PlaneContext {
  /** Readers at committed snapshots: a change's snapshot is one (its maintenance flag included). */
  reader(selector?: SnapshotSelector): Promise<Reader>;
  changes(schema: string, table: string, range: { from: number; to: number }): Promise<TableChanges>;
}

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

function selectorOf(what: string, b: ChangeBound): SnapshotSelector {
  if (typeof b === 'number') return { snapshot: b };
  if (typeof b === 'string' || b instanceof Date) return { timestamp: b };
  if (b !== null && typeof b === 'object' && typeof (b as { tag?: unknown }).tag === 'string') return { tag: b.tag };
  throw invalid(`tableChanges() ${what} must be a snapshot id, a time (Date or ISO-8601) or { tag }; got ${JSON.stringify(b)}`);
}

/** One event: the rows of `file` at the positions `filter` keeps, inserted or deleted at `snapshot`. */
interface Event {
  snapshot: SnapshotId;
  kind: 'insert' | 'delete';
  file: DataFileInfo;
  /** Positions in these delete files count (null: every position)… */
  within: DeleteFileInfo | null;
  /** …less the positions in this one. */
  without: DeleteFileInfo | null;
}

/** The events of [from, to]: what each snapshot inserted and deleted, by file. */
async function eventsOf(ctx: RowChangesContext, schema: string, table: string, tableId: number, from: SnapshotId, to: SnapshotId, readers: Map<number, Reader>): Promise<Event[]> {
  const at = async (s: number) => {
    let r = readers.get(s);
    if (r === undefined) {
      r = await ctx.reader({ snapshot: s });
      readers.set(s, r);
    }
    return r;
  };
  const changes = await ctx.changes(schema, table, { from, to });
  // What a data file looked like just before snapshot s: its row (path, row ids) and its delete file.
  const before = async (s: SnapshotId, file: FileId) => {
    const r = await at(s - 1);
    const t = await r.table(schema, table).catch(() => undefined);
    if (t?.id !== tableId) throw invalid(`${schema}.${table} was renamed or replaced inside snapshots ${from}–${to}; ask for a range after snapshot ${s - 1}`);
    const data = (await r.dataFiles(schema, table)).find((f) => f.id === file);
    const del = (await r.deleteFiles(schema, table)).find((d) => d.dataFileId === file) ?? null;
    return { data, del };
  };
  const touched = new Set([...changes.addedFiles, ...changes.removedFiles, ...changes.addedDeleteFiles].map((f) => f.snapshot));
  const maintenance = new Set<number>();
  for (const s of touched) if ((await at(s)).snapshot.maintenance) maintenance.add(s);
  const events: Event[] = [];
  const deletedAt = new Map(changes.addedDeleteFiles.map((d) => [`${d.snapshot}:${d.dataFileId}`, d]));
  for (const f of changes.addedFiles) {
    if (maintenance.has(f.snapshot)) continue;
    events.push({ snapshot: f.snapshot, kind: 'insert', file: f, within: null, without: deletedAt.get(`${f.snapshot}:${f.id}`) ?? null });
  }
  const added = new Set(changes.addedFiles.map((f) => `${f.snapshot}:${f.id}`));
  for (const d of changes.addedDeleteFiles) {
    if (maintenance.has(d.snapshot) || added.has(`${d.snapshot}:${d.dataFileId}`)) continue;
    const { data, del } = await before(d.snapshot, d.dataFileId);
    if (data !== undefined) events.push({ snapshot: d.snapshot, kind: 'delete', file: data, within: d, without: del });
  }
  for (const f of changes.removedFiles) {
    if (maintenance.has(f.snapshot) || f.beginSnapshot >= f.snapshot) continue;
    const { del } = await before(f.snapshot, f.id);
    events.push({ snapshot: f.snapshot, kind: 'delete', file: f, within: null, without: del });
  }
  return events.sort((a, b) => a.snapshot - b.snapshot);
}

/** The query of every change of [from, to], and the readers and held files it needs until it has run. */
async function changesQuery(ctx: RowChangesContext, schema: string, table: string, range: { from: ChangeBound; to: ChangeBound }, readers: Map<number, Reader>, held: StatementFiles) {
  if (range === null || typeof range !== 'object') throw invalid('tableChanges() needs { from, to }: snapshot ids, times or { tag }, both inclusive');
  const rFrom = await ctx.reader(selectorOf('from', range.from));
  readers.set(rFrom.snapshot.id, rFrom);
  const rTo = await ctx.reader(selectorOf('to', range.to));
  readers.set(rTo.snapshot.id, rTo);
  const [from, to] = [rFrom.snapshot.id, rTo.snapshot.id];
  if (from > to) throw invalid(`from (snapshot ${from}) is after to (snapshot ${to}); swap them`);
  const { id, columns } = await rTo.table(schema, table);
  const events = await eventsOf(ctx, schema, table, id, from, to, readers);
  const byPath = new Map(events.flatMap((e) => [e.file, ...[e.within, e.without].filter((d) => d !== null)]).map((f) => [f.path, f]));
  const paths = [...byPath.keys()];
  const local = await held.hold([...byPath.values()].map((f) => recordedFile(ctx.dataPath, f)));
  const localOf = new Map(paths.map((p, i) => [p, local[i]!]));
  const names = [...columns].sort((a, b) => a.order - b.order).map((c) => ident(c.name));
  const [, pos, rowid] = POSITION.map(ident);
  const empty = `SELECT NULL::BIGINT AS snapshot_id, NULL::VARCHAR AS k, NULL::BIGINT AS rowid, ${typedNulls(columns)} WHERE false`;
  const branches = events.map((e) => {
    const scan = tableScan({ columns, files: [{ local: localOf.get(e.file.path)!, rowIdStart: e.file.rowIdStart }], deletes: [] }, true);
    const positions = (d: DeleteFileInfo) => `(SELECT pos FROM read_parquet(${literal(localOf.get(d.path)!)}))`;
    const where = [e.within && `${pos} IN ${positions(e.within)}`, e.without && `${pos} NOT IN ${positions(e.without)}`].filter(Boolean).join(' AND ');
    return `SELECT ${e.snapshot}::BIGINT, '${e.kind}', ${rowid}, ${names.join(', ')} FROM (${scan})${where ? ` WHERE ${where}` : ''}`;
  });
  const all = [empty, ...branches].join(' UNION ALL ');
  return (
    `SELECT snapshot_id, rowid, CASE WHEN count(*) OVER (PARTITION BY snapshot_id, rowid) > 1 THEN (CASE k WHEN 'insert' THEN 'update_postimage' ELSE 'update_preimage' END) ELSE k END AS change_type, ` +
    `${names.join(', ')} FROM (${all}) ORDER BY snapshot_id, rowid, k = 'insert'`
  );
}

/** The changes as one result. */
export async function rowChanges(ctx: RowChangesContext, schema: string, table: string, range: { from: ChangeBound; to: ChangeBound }): Promise<SqlResult> {
  const rows: Record<string, unknown>[] = [];
  let columns: SqlResult['columns'] = [];
  let snapshot: SnapshotId | null = null;
  for await (const batch of rowChangeBatches(ctx, schema, table, range)) {
    append(rows, batch.rows);
    columns = batch.columns;
    snapshot = batch.snapshot;
  }
  return { rows, columns, snapshot, files: { listed: 0, skipped: 0 } };
}

/** The changes in DuckDB's batches: memory bounded by a batch, however many rows changed. */
export async function* rowChangeBatches(ctx: RowChangesContext, schema: string, table: string, range: { from: ChangeBound; to: ChangeBound }): AsyncGenerator<SqlResult> {
  const readers = new Map<number, Reader>();
  const held = new StatementFiles(ctx.files, 'beside-read');
  const c: DuckDBConnection = await ctx.engine.connect();
  try {
    const sql = await changesQuery(ctx, schema, table, range, readers, held);
    const to = Math.max(...readers.keys()) as SnapshotId;
    const { columns, batches } = await held.streamed(streamRows(c, sql));
    let any = false;
    for await (const rows of batches) {
      any = true;
      yield { rows, columns, snapshot: to, files: { listed: 0, skipped: 0 } };
    }
    // No change at all still says which columns a change would have.
    if (!any) yield { rows: [], columns, snapshot: to, files: { listed: 0, skipped: 0 } };
  } finally {
    held.release();
    for (const r of readers.values()) await r.close();
    c.closeSync();
  }
}
