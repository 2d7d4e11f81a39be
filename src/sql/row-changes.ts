// The rows a table gained and lost between two snapshots, as DuckLake's table_changes gives them, for every
// snapshot in [from, to] (both inclusive): the rows each snapshot took away and gave (src/read/row-events.ts:
// by data file, as sets of positions), each with its id (carried in its file, else row_id_start + position).
// A row taken away and given back under one id in one snapshot is an update when its values changed (the
// preimage and the postimage) and nothing when they did not: a restore moved it to another file. So every
// kind of commit answers by what it did to the rows (a compaction, which only moves rows, is not even read:
// row-events.ts). Columns are the table's at `to`, read by field id from every file (or by name, mapped), each row
// as it was at its snapshot (a column the table did not have then reads as its default).
import type { DuckDBConnection } from '@duckdb/node-api';
import { append } from '../../keys/mutation.js';
import type { SnapshotId } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import { columnsOf } from '../read/catalog-queries.js';
import type { SnapshotReads } from '../read/read-state.js';
import { columnTree, type Reader } from '../read/reader.js';
import { isVisible } from '../../keys/visibility.js';
import type { ColumnInfo, DeleteFileInfo } from '../read/records.js';
import type { SnapshotSelector } from '../read/resolve-snapshot.js';
import { type RowEvent, rowEvents } from '../read/row-events.js';
import { recordedFile } from './local-files.js';
import { StatementFiles } from './statement-files.js';
import { checkDeletes, checkedTogether, mappingsOf, noFiles, type PlaneContext, type SqlResult } from './query.js';
import { ident, literal } from './sql-text.js';
import { defaultOf, POSITION, tableScan, typedNulls } from './table-scan.js';
import { streamRows } from './values.js';

/** A bound of the range: a snapshot id, a time (Date or ISO-8601), or { tag }. */
export type ChangeBound = number | Date | string | { tag: string };

export interface RowChangesContext extends PlaneContext {
  /** Committed snapshots: readers at them, and a view of the newest state (a table's row events, its columns' versions). */
  reads: SnapshotReads;
}

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

function selectorOf(what: string, b: ChangeBound): SnapshotSelector {
  if (typeof b === 'number') return { snapshot: b };
  if (typeof b === 'string' || b instanceof Date) return { timestamp: b };
  if (b !== null && typeof b === 'object' && typeof (b as { tag?: unknown }).tag === 'string') return { tag: b.tag };
  throw invalid(`tableChanges() ${what} must be a snapshot id, a time (Date or ISO-8601) or { tag }; got ${JSON.stringify(b)}`);
}

/**
 * The query of every change of [from, to], its bounds resolved by the readers it opens (closed by the caller),
 * its files held in `held`: what tableChanges() runs, and what a statement's table_changes() reads.
 */
export async function changesQuery(ctx: RowChangesContext, schema: string, table: string, range: { from: SnapshotSelector; to: SnapshotSelector }, readers: Reader[], held: StatementFiles) {
  const rFrom = await ctx.reads.reader(range.from);
  readers.push(rFrom);
  const rTo = await ctx.reads.reader(range.to);
  readers.push(rTo);
  const [from, to] = [rFrom.snapshot.id, rTo.snapshot.id];
  if (from > to) throw invalid(`from (snapshot ${from}) is after to (snapshot ${to}); swap them`);
  const { id, columns } = await rTo.table(schema, table);
  const events = await ctx.reads.view((view) => rowEvents(view, id, from, to));
  const byPath = new Map(events.flatMap((e) => [e.file, ...[e.within, e.without].filter((d) => d !== null)]).map((f) => [f.path, f]));
  const paths = [...byPath.keys()];
  const local = await held.hold([...byPath.values()].map((f) => recordedFile(ctx.dataPath, f)));
  const localOf = new Map(paths.map((p, i) => [p, local[i]!]));
  const files = [...new Map(events.map((e) => [e.file.id, e.file])).values()];
  // A delete file is trusted only once its positions fit its data file (decision 0040), as a scan's are;
  // that check and the field-id check run at once.
  const deletes = new Map(events.flatMap((e) => [e.within, e.without].filter((d) => d !== null).map((d) => [d.id, { d, recordCount: e.file.recordCount }] as const)));
  const { mappings } = await checkedTogether(
    () => mappingsOf(ctx, rTo, { schema, table }, files, new Map(files.map((f) => [f.id, localOf.get(f.path)!]))),
    () => checkDeletes(ctx, [...deletes.values()].map(({ d, recordCount }) => ({ file: d, local: localOf.get(d.path)!, recordCount }))),
  );
  const names = [...columns].sort((a, b) => a.order - b.order).map((c) => ident(c.name));
  const [file, pos, rowid] = POSITION.map(ident);
  // Each change's row is as it was — a row taken away as it was before its snapshot, a row given as it was at
  // it — in the columns of `to`: a column the table did not have then (added since, or dropped then and brought
  // back by a restore) reads as its default. Whether a row taken and given back under one id in one snapshot
  // changed is asked in the columns the table had just before and at it: an UPDATE of a column dropped since
  // is still an update. Those columns are read too, hidden.
  const versions = await ctx.reads.view((view) => columnsOf(view, id, undefined));
  const has = (c: number, s: number) => versions.some((v) => v.id === c && isVisible(v.begin, v.row.end, s));
  const at = (side: RowEvent['side'], s: number) => (side === 'removed' ? s - 1 : s);
  const sides = [...new Map(events.map((e) => [`${e.side}:${e.snapshot}`, { side: e.side, s: e.snapshot }])).values()];
  const absent = new Map(columns.map((c) => [c.id, sides.filter(({ side, s }) => !has(c.id, at(side, s)))]));
  const removing = new Set(events.filter((e) => e.side === 'removed').map((e) => e.snapshot));
  const paired = [...new Set(events.filter((e) => e.side === 'added' && removing.has(e.snapshot)).map((e) => e.snapshot))];
  // The columns it had both before and at the snapshot: a column added or dropped by the snapshot itself is a
  // change of the table, not of its rows.
  const then = new Map(paired.map((s) => [s, versions.filter((v) => isVisible(v.begin, v.row.end, s) && has(v.id, s - 1))]));
  const hidden = new Map<number, ColumnInfo>();
  for (const cols of then.values()) {
    for (const c of columnTree(cols)) if (!columns.some((x) => x.id === c.id)) hidden.set(c.id, { ...c, name: `__strata_column_${c.id}`, order: Number.MAX_SAFE_INTEGER - c.id });
  }
  const read = [...columns, ...hidden.values()];
  const nameOf = (c: ColumnInfo) => ident(columns.find((x) => x.id === c.id)?.name ?? `__strata_column_${c.id}`);
  const asThen = (c: ColumnInfo) => {
    const missing = absent.get(c.id) ?? [];
    const when = missing.map(({ side, s }) => `(e.k = '${side === 'added' ? 'insert' : 'delete'}' AND e.s = ${s})`);
    return missing.length === 0 ? `r.${ident(c.name)}` : `CASE WHEN ${when.join(' OR ')} THEN ${defaultOf(c)} ELSE r.${ident(c.name)} END`;
  };
  const readValues = [...read].sort((a, b) => a.order - b.order).map((c) => (hidden.has(c.id) ? `r.${ident(c.name)}` : asThen(c)));
  const empty = `SELECT NULL::BIGINT AS ${SNAPSHOT}, NULL::VARCHAR AS ${KIND}, NULL::BIGINT AS ${rowid}, ${typedNulls(read)} WHERE false`;
  // One scan of every file an event names (each read once, however many events it has), and one read of every
  // delete file: a branch per event, each its own Parquet scan, took ~1 MiB of DuckDB's memory a branch.
  // Events are joined to rows by the local file: one object registered under several ids (a restore brings
  // files back under new ids, with their row ids) is scanned once.
  const scanned = new Map(files.map((f) => [localOf.get(f.path)!, { local: localOf.get(f.path)!, rowIdStart: f.rowIdStart, mapping: mappings.get(f.id) }]));
  const scan = tableScan({ columns: read, files: [...scanned.values()], deletes: [] }, true);
  const deleteLocals = [...new Set([...deletes.values()].map(({ d }) => localOf.get(d.path)!))];
  const positions = deleteLocals.length === 0 ? 'SELECT NULL::VARCHAR AS d, NULL::BIGINT AS pos WHERE false' : `SELECT filename AS d, pos FROM read_parquet([${deleteLocals.map(literal).join(', ')}], filename = true)`;
  const deleteLocal = (d: DeleteFileInfo | null) => (d === null ? 'NULL::VARCHAR' : literal(localOf.get(d.path)!));
  const eventRows = `VALUES ${events.map((e) => `(${e.snapshot}::BIGINT, '${e.side === 'added' ? 'insert' : 'delete'}', ${literal(localOf.get(e.file.path)!)}, ${deleteLocal(e.within)}, ${deleteLocal(e.without)})`).join(', ')}`;
  // An event's rows: those of its file at the positions its `within` delete file holds (all, if none) and its `without` one does not.
  const changed =
    events.length === 0
      ? empty
      : `SELECT e.s, e.k, r.${rowid}, ${readValues.join(', ')} FROM (${eventRows}) AS e(s, k, f, w, o) JOIN (${scan}) AS r ON r.${file} = e.f ` +
        `LEFT JOIN (${positions}) AS w ON w.d = e.w AND w.pos = r.${pos} LEFT JOIN (${positions}) AS o ON o.d = e.o AND o.pos = r.${pos} ` +
        `WHERE (e.w IS NULL OR w.pos IS NOT NULL) AND (e.o IS NULL OR o.pos IS NULL)`;
  const same = (s: SnapshotId) => {
    const cols = columnTree(then.get(s)!).map(nameOf);
    return cols.length === 0 ? 'true' : `ROW(${cols.map((n) => `r.${n}`).join(', ')}) IS NOT DISTINCT FROM ROW(${cols.map((n) => `a.${n}`).join(', ')})`;
  };
  const unchanged = paired.length === 0 ? 'false' : `CASE r.${SNAPSHOT} ${paired.map((s) => `WHEN ${s} THEN ${same(s)}`).join(' ')} ELSE false END`;
  // Two rows of one (snapshot, row id) are an update, unless their values are the same: a row given back under
  // its id as it was was moved, not changed. Only such pairs are compared (most rows are alone).
  const sql =
    `WITH c AS MATERIALIZED (SELECT *, count(*) OVER (PARTITION BY ${SNAPSHOT}, ${rowid}) AS ${PAIRED} FROM (${empty} UNION ALL ${changed})), ` +
    `moved AS (SELECT r.${SNAPSHOT}, r.${rowid} FROM c r JOIN c a ON r.${SNAPSHOT} = a.${SNAPSHOT} AND r.${rowid} = a.${rowid} ` +
    `WHERE r.${PAIRED} > 1 AND a.${PAIRED} > 1 AND r.${KIND} = 'delete' AND a.${KIND} = 'insert' AND ${unchanged}) ` +
    `SELECT ${SNAPSHOT} AS snapshot_id, ${rowid} AS rowid, CASE WHEN ${PAIRED} > 1 THEN (CASE ${KIND} WHEN 'insert' THEN 'update_postimage' ELSE 'update_preimage' END) ELSE ${KIND} END AS change_type, ` +
    `${names.join(', ')} FROM c ANTI JOIN moved USING (${SNAPSHOT}, ${rowid}) ORDER BY ${SNAPSHOT}, ${rowid}, ${KIND} = 'insert'`;
  return { sql, to };
}

/** The columns of the query's rows before they are named as DuckLake names them. */
const SNAPSHOT = '__strata_snapshot';
const KIND = '__strata_kind';
const PAIRED = '__strata_paired';

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
  return { rows, columns, snapshot, files: noFiles() };
}

/** The changes in DuckDB's batches: memory bounded by a batch, however many rows changed. */
export async function* rowChangeBatches(ctx: RowChangesContext, schema: string, table: string, range: { from: ChangeBound; to: ChangeBound }): AsyncGenerator<SqlResult> {
  const readers: Reader[] = [];
  const held = new StatementFiles(ctx.files);
  const c: DuckDBConnection = await ctx.engine.connect();
  try {
    if (range === null || typeof range !== 'object') throw invalid('tableChanges() needs { from, to }: snapshot ids, times or { tag }, both inclusive');
    const { sql, to } = await changesQuery(ctx, schema, table, { from: selectorOf('from', range.from), to: selectorOf('to', range.to) }, readers, held);
    const { columns, batches } = await streamRows(c, sql);
    let any = false;
    for await (const rows of batches) {
      any = true;
      yield { rows, columns, snapshot: to, files: noFiles() };
    }
    // No change at all still says which columns a change would have.
    if (!any) yield { rows: [], columns, snapshot: to, files: noFiles() };
  } finally {
    held.release();
    for (const r of readers) await r.close();
    c.closeSync();
  }
}
