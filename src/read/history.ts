// Questions about history rather than about one snapshot: the snapshots that touched a table, the files a
// table gained and lost between two snapshots, what a commit said it read.
import { dataFileIdEnd, dataFileIdOf, type DataFileRow, dataFilesOfTable } from '../../keys/data-files.js';
import { deleteFileIdEnd, deleteFileIdOf, type DeleteFileRow, deleteFilesOfTable } from '../../keys/delete-files.js';
import { type CatalogId, type FileId, type SnapshotId, snapshotId } from '../../keys/ids.js';
import type { Key } from '../../keys/key-codec.js';
import { changesBetween, type SnapshotChangesRow, snapshotOfKey, type SnapshotRow, snapshotsBetween } from '../../keys/snapshots.js';
import { decodeValue } from '../../keys/value-codec.js';
import { flag, options, positiveCount } from '../arguments.js';
import { StrataError } from '../errors.js';
import type { ReadView } from '../kv/read-view.js';
import { quote } from '../messages.js';
import * as q from './catalog-queries.js';
import { dataFile, dataFileInfo, deleteFileInfo } from './file-listing.js';
import type { DataFileInfo, DeleteFileInfo, SnapshotInfo } from './records.js';
import { parseInstant } from '../snapshot-names.js';
import { resolveSnapshot } from './resolve-snapshot.js';

/** A bound of a history range: a snapshot id (number), or a point in time (Date or ISO-8601 string). */
export type HistoryBound = number | Date | string;

export interface ReadSource {
  schema: string;
  table: string;
  snapshot: number;
}

export interface TableChanges {
  addedFiles: (DataFileInfo & { snapshot: SnapshotId })[];
  removedFiles: (DataFileInfo & { snapshot: SnapshotId })[];
  addedDeleteFiles: (DeleteFileInfo & { snapshot: SnapshotId })[];
  /** Delete files that stopped applying: replaced by a newer one, gone with their data file, or ended by a restore. */
  removedDeleteFiles: (DeleteFileInfo & { snapshot: SnapshotId })[];
}

/** A bound as a snapshot id: ids must exist; times resolve as reader({ timestamp }) does. */
export async function resolveBound(view: ReadView, what: string, bound: unknown): Promise<SnapshotId> {
  if (typeof bound === 'number') return (await resolveSnapshot(view, { snapshot: bound }, { previousWalkLimit: 1 })).id;
  if (bound instanceof Date || typeof bound === 'string') {
    return (await resolveSnapshot(view, { timestamp: parseInstant(what, bound) }, { previousWalkLimit: 1 })).id;
  }
  throw new StrataError('INVALID_ARGUMENT', `${what} must be a snapshot id, a Date or an ISO-8601 string; got ${JSON.stringify(bound)}`);
}

export interface HistoryOptions {
  from?: HistoryBound;
  to?: HistoryBound;
  table?: { schema: string; table: string };
  /** Newest first: a caller that wants the last few stops early, and nothing older is read. */
  newestFirst?: boolean;
  /** At most this many: the first in the order asked for (with newestFirst, the newest). Nothing past them is read. */
  limit?: number;
}

/** The table's id, by its name at `at`; undefined if no table had that name then. */
export async function tableIdAt(view: ReadView, at: SnapshotId, schema: string, table: string): Promise<CatalogId | undefined> {
  const schemaId = await q.schemaIdByName(view, at, schema);
  const rel = schemaId === undefined ? undefined : await q.relationByName(view, at, schemaId, table);
  return rel?.kind === 'table' ? rel.id : undefined;
}

/**
 * Snapshots in [from, to], oldest first (or newest); with `tableId`, only those that created, changed or
 * dropped it; at most `limit`.
 */
export async function* history(
  view: ReadView,
  from: SnapshotId,
  to: SnapshotId,
  tableId?: CatalogId,
  newestFirst = false,
  limit = Infinity,
): AsyncGenerator<SnapshotInfo> {
  const created = tableId === undefined ? undefined : await q.tableCreation(view, tableId);
  const mentions = (changes: string[]) => changes.some((c) => c.endsWith(`_table:${tableId}`));
  const ranges = await retainedRanges(view, from, to);
  let left = limit;
  for (const [a, b] of newestFirst ? ranges.reverse() : ranges) {
    for await (const s of historyIn(view, a, b, tableId === undefined ? undefined : { id: tableId, created, mentions }, newestFirst, left)) {
      yield s;
      if (--left <= 0) return;
    }
  }
}

/** Snapshots in [from, to], every one of them retained: of one table when `table` says which. */
async function* historyIn(
  view: ReadView,
  from: SnapshotId,
  to: SnapshotId,
  table: { id: CatalogId; created: SnapshotId | undefined; mentions: (changes: string[]) => boolean } | undefined,
  newestFirst: boolean,
  limit: number,
): AsyncGenerator<SnapshotInfo> {
  // Where every snapshot in the range is yielded (none passed over), the index reads `limit` of each and no
  // more: a scan reads 256 entries at a time and the next 256 ahead, five times a page of a hundred.
  const exact = table === undefined && Number.isFinite(limit) ? { limit } : {};
  // The snapshot records are read alongside their changes, in the same order: a get of each (and of its
  // changes again) was most of the time `strata snapshots` took over a long history.
  const records = view.scan({ ...snapshotsBetween(from, to), reverse: newestFirst, ...exact });
  // Whether a record's snapshot comes before `id` in the order read.
  const before = newestFirst ? (key: Key, id: number) => snapshotOfKey(key) > id : (key: Key, id: number) => snapshotOfKey(key) < id;
  try {
    let record = await records.next();
    for await (const [key, bytes] of view.scan({ ...changesBetween(from, to), reverse: newestFirst, ...exact })) {
      const id = snapshotOfKey(key);
      const changes = decodeValue<SnapshotChangesRow>(key, bytes);
      if (table !== undefined && id !== table.created && !table.mentions(changes.changes)) continue;
      while (!record.done && before(record.value[0], id)) record = await records.next();
      if (!record.done && snapshotOfKey(record.value[0]) === id) yield q.snapshotInfoOf(id, decodeValue<SnapshotRow>(record.value[0], record.value[1]), changes);
    }
  } finally {
    await records.return(undefined);
  }
}

/** Whether a snapshot (a begin, an end: null is none) lies in [from, to]. */
const within = (from: SnapshotId, to: SnapshotId) => (s: number | null) => s !== null && s >= from && s <= to;

/**
 * The file versions of a table that snapshots [from, to] touched, as they were at `to` (an end after it is
 * not shown): the data files begun or ended in the range, the delete files begun or ended in it, and the
 * delete files applying to a data file of the first kind anywhere in [from - 1, to] (a file ended in the
 * range had the rows its delete file left). A delete file ended by the commit that wrote it (a delete of
 * every row, which ended the data file instead) never applied, and is left out.
 */
export async function fileVersions(view: ReadView, tableId: CatalogId, from: SnapshotId, to: SnapshotId): Promise<{ data: DataFileInfo[]; deletes: DeleteFileInfo[] }> {
  const inRange = within(from, to);
  // No file an old snapshot can have touched has an id at or above its next_file_id.
  const idEnd = (await q.snapshotRow(view, to))!.nextFileId;
  const data = new Map<FileId, DataFileInfo>();
  for await (const batch of view.versionBatches(dataFilesOfTable(tableId), dataFileIdEnd(tableId, idEnd))) {
    for (const v of batch) {
      const row = v.row as DataFileRow;
      if (inRange(v.begin) || inRange(row.end)) data.set(dataFileIdOf(v.fields), dataFileInfo(dataFileIdOf(v.fields), v.begin as SnapshotId, row, to));
    }
  }
  const deletes: DeleteFileInfo[] = [];
  for await (const batch of view.versionBatches(deleteFilesOfTable(tableId), deleteFileIdEnd(tableId, idEnd))) {
    for (const v of batch) {
      const row = v.row as DeleteFileRow;
      if (row.end === v.begin || v.begin > to || (row.end !== null && row.end < from)) continue;
      if (inRange(v.begin) || inRange(row.end) || data.has(row.dataFileId)) deletes.push(deleteFileInfo(deleteFileIdOf(v.fields), v.begin as SnapshotId, row, to));
    }
  }
  // A data file whose deletes alone changed in the range is read by id.
  for (const d of deletes) {
    if (data.has(d.dataFileId)) continue;
    const v = await dataFile(view, tableId, d.dataFileId);
    if (v !== undefined) data.set(v.id, dataFileInfo(v.id, v.begin, v.row, to));
  }
  return { data: [...data.values()], deletes };
}

/**
 * What a table gained and lost in snapshots [from, to], as DuckLake's table_changes counts them (both ends
 * inclusive): data files whose begin is in the range, data files whose end is, delete files whose begin is,
 * and delete files whose end is.
 */
export async function tableChanges(view: ReadView, tableId: CatalogId, from: SnapshotId, to: SnapshotId): Promise<TableChanges> {
  const { data, deletes } = await fileVersions(view, tableId, from, to);
  const inRange = within(from, to);
  const at = <T>(f: T, snapshot: SnapshotId) => ({ ...f, snapshot });
  return {
    addedFiles: data.filter((f) => inRange(f.beginSnapshot)).map((f) => at(f, f.beginSnapshot)),
    removedFiles: data.filter((f) => inRange(f.endSnapshot)).map((f) => at(f, f.endSnapshot!)),
    addedDeleteFiles: deletes.filter((d) => inRange(d.beginSnapshot)).map((d) => at(d, d.beginSnapshot)),
    removedDeleteFiles: deletes.filter((d) => inRange(d.endSnapshot)).map((d) => at(d, d.endSnapshot!)),
  };
}

/** snapshots() as a caller asks for it: its options checked, its bounds resolved, its table named now or at `to`. */
export async function* historyOf(view: ReadView, given: HistoryOptions | undefined): AsyncGenerator<SnapshotInfo> {
  const { from, to, tableId, newestFirst, limit } = await historyRange(view, given);
  let n = 0;
  for await (const s of history(view, from, to, tableId, newestFirst, limit)) {
    yield s;
    if (++n >= limit) return;
  }
}

/**
 * How many snapshots historyOf would yield. Over the whole history, or a range, it counts the snapshots'
 * keys and decodes none of them (`strata snapshots` and `info` say how many there are, and show a page).
 */
export async function historyCount(view: ReadView, given: HistoryOptions | undefined): Promise<number> {
  const { from, to, tableId, limit } = await historyRange(view, given);
  let n = 0;
  if (tableId !== undefined) {
    for await (const _ of history(view, from, to, tableId)) if (++n >= limit) break;
    return n;
  }
  for (const [a, b] of await retainedRanges(view, from, to)) {
    for await (const batch of view.scanBatches({ ...snapshotsBetween(a, b), ...(Number.isFinite(limit) ? { limit: limit - n } : {}) })) {
      n += batch.length;
      if (n >= limit) return limit;
    }
  }
  return n;
}

/**
 * The retained history within [from, to], as ranges in ascending order: below retain-from only tagged snapshots
 * are (each a range of one, the snapshots between them passed over unread, however many excision has yet to
 * remove), and from retain-from on every snapshot is.
 */
async function retainedRanges(view: ReadView, from: SnapshotId, to: SnapshotId): Promise<[SnapshotId, SnapshotId][]> {
  const retainFrom = (await q.retainFrom(view)).snapshot;
  const ranges: [SnapshotId, SnapshotId][] = [];
  if (from < retainFrom) {
    const tagged = new Set<SnapshotId>();
    for await (const t of q.tags(view)) if (t.snapshot >= from && t.snapshot <= to && t.snapshot < retainFrom) tagged.add(t.snapshot);
    for (const id of [...tagged].sort((a, b) => a - b)) ranges.push([id, id]);
  }
  const start = snapshotId(Math.max(from, retainFrom));
  if (start <= to) ranges.push([start, to]);
  return ranges;
}

async function historyRange(view: ReadView, given: HistoryOptions | undefined) {
  const opts = options('snapshots()', given, ['from', 'to', 'table', 'newestFirst', 'limit']);
  const newestFirst = flag('snapshots() newestFirst', opts.newestFirst);
  const limit = positiveCount('snapshots() limit', opts.limit, Infinity);
  if (opts.table !== undefined) options('snapshots() table', opts.table, ['schema', 'table']);
  const head = (await q.headSnapshot(view)).begin;
  const from = opts.from === undefined ? snapshotId(0) : await resolveBound(view, 'from', opts.from);
  const to = opts.to === undefined ? head : await resolveBound(view, 'to', opts.to);
  let tableId: CatalogId | undefined;
  if (opts.table !== undefined) {
    const { schema, table } = opts.table;
    tableId = (await tableIdAt(view, head, schema, table)) ?? (await tableIdAt(view, to, schema, table));
    if (tableId === undefined) throw new StrataError('NOT_FOUND', `table ${quote(schema, table)} exists neither now nor at snapshot ${to}`);
  }
  return { from, to, tableId, newestFirst, limit };
}

/** changes() of a table named as it was at `to` (or at `from`), its bounds checked and resolved. */
export async function tableChangesByName(view: ReadView, schema: string, table: string, range: { from: HistoryBound; to: HistoryBound }): Promise<TableChanges> {
  if (range === undefined) throw new StrataError('INVALID_ARGUMENT', 'changes() needs { from, to }: the snapshots (ids or times, inclusive) to compare');
  options('changes()', range, ['from', 'to']);
  const from = await resolveBound(view, 'from', range.from);
  const to = await resolveBound(view, 'to', range.to);
  if (from > to) throw new StrataError('INVALID_ARGUMENT', `from (snapshot ${from}) is after to (snapshot ${to}); swap them`);
  const tableId = (await tableIdAt(view, to, schema, table)) ?? (await tableIdAt(view, from, schema, table));
  if (tableId === undefined) throw new StrataError('NOT_FOUND', `table ${quote(schema, table)} exists neither at snapshot ${from} nor at ${to}`);
  return tableChanges(view, tableId, from, to);
}

export function checkReadSources(sources: unknown): ReadSource[] {
  if (sources === undefined) return [];
  const invalid = () =>
    new StrataError('INVALID_ARGUMENT', `readSources must be a list of { schema, table, snapshot }; got ${JSON.stringify(sources)}`);
  if (!Array.isArray(sources)) throw invalid();
  return sources.map((s: unknown) => {
    const r = s as ReadSource;
    if (r === null || typeof r !== 'object' || typeof r.schema !== 'string' || typeof r.table !== 'string') throw invalid();
    if (!Number.isSafeInteger(r.snapshot) || r.snapshot < 0) throw invalid();
    return { schema: r.schema, table: r.table, snapshot: r.snapshot };
  });
}

/** Read sources must name a table that existed at the snapshot they say was read. */
export async function verifyReadSources(view: ReadView, sources: ReadSource[]): Promise<void> {
  for (const s of sources) {
    const at = await resolveBound(view, 'readSources snapshot', s.snapshot);
    if ((await tableIdAt(view, at, s.schema, s.table)) === undefined) {
      throw new StrataError('NOT_FOUND', `readSources names table ${quote(s.schema, s.table)} at snapshot ${at}, where it does not exist`, {
        snapshot: at,
      });
    }
  }
}
