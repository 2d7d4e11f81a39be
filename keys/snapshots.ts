// Snapshots and what each says about itself: ducklake_snapshot, ducklake_snapshot_changes and
// ducklake_schema_versions, keyed by the snapshot id alone (it *is* their begin_snapshot), and the time index
// beside them, `[time][id]`, so "the newest snapshot at or before T" is one reverse seek and equal times
// order by id. Append-only: written once by the commit that creates the snapshot, deleted only by excision.
import { type CatalogId, type FileId, MAX_ID, type SnapshotId, snapshotId } from './ids.js';
import { beginOf, encodeKey, type Key, type KeyRange, keyPrefix, keyToString, prefixEnd, prefixRange, readU64 } from './key-codec.js';
import { del, type Mutation, putRow } from './mutation.js';
import { Space } from './spaces.js';
import { putHeadSnapshot } from './system.js';
import type { Violation } from './violation.js';

export interface SnapshotRow {
  /** ms since epoch, from the catalog clock; never lower than the previous snapshot's. */
  time: number;
  schemaVersion: number;
  nextCatalogId: CatalogId;
  nextFileId: FileId;
}

export interface SnapshotChangesRow {
  /** DuckLake's changes_made entries, e.g. `created_table:"sales"."orders"`, `inserted_into_table:3`. */
  changes: string[];
  author: string | null;
  message: string | null;
  extraInfo: string | null;
  /** Compaction, stats refresh and the like: skipped by "previous". */
  maintenance: boolean;
  /** The table snapshots this commit says it was computed from (lineage); absent when none were given. */
  readSources?: { schema: string; table: string; snapshot: SnapshotId }[];
}

export interface SchemaVersionsRow {
  schemaVersion: number;
}

export const snapshotKey = (id: number): Key => encodeKey(Space.Snapshot, [], id);
export const snapshotChangesKey = (id: number): Key => encodeKey(Space.SnapshotChanges, [], id);
const schemaVersionsKey = (id: number): Key => encodeKey(Space.SchemaVersions, [], id);
const timeKey = (time: number, id: number): Key => encodeKey(Space.SnapshotTimeIndex, [time], id);

/** The snapshot id a Snapshot or SnapshotChanges key is about. */
export const snapshotOfKey = (key: Key): SnapshotId => snapshotId(beginOf(key));

const SNAPSHOTS = keyPrefix(Space.Snapshot);
const CHANGES = keyPrefix(Space.SnapshotChanges);
const TIMES = keyPrefix(Space.SnapshotTimeIndex);

export const ALL_SNAPSHOTS: KeyRange = prefixRange(SNAPSHOTS);
export const snapshotsBelow = (id: number): KeyRange => ({ gte: SNAPSHOTS, lt: snapshotKey(id) });
export const snapshotsFrom = (id: number): KeyRange => ({ gte: snapshotKey(id), lt: prefixEnd(SNAPSHOTS) });
/** Snapshot records up to `id`, for the greatest one at or below it. */
export const snapshotsUpTo = (id: number): { gte: Key; lte: Key } => ({ gte: SNAPSHOTS, lte: snapshotKey(id) });

/** Snapshot records of the snapshots in [from, to]. */
export const snapshotsBetween = (from: number, to: number): KeyRange => ({ gte: snapshotKey(from), lte: snapshotKey(to) });

/** Snapshot changes of the snapshots in [from, to]. */
export const changesBetween = (from: number, to: number): KeyRange => ({ gte: snapshotChangesKey(from), lte: snapshotChangesKey(to) });
export const changesUpTo = (id: number): KeyRange => ({ gte: CHANGES, lte: snapshotChangesKey(id) });

export const ALL_TIMES: KeyRange = prefixRange(TIMES);
/**
 * Time index entries up to `time`: the last one is the newest snapshot at or before it. A time past any a key
 * holds (a caller may ask for 1e300) ends the range at the last one: every commit time is below it.
 */
export const timesUpTo = (time: number): { gte: Key; lte: Key } => ({ gte: TIMES, lte: timeKey(Math.min(time, MAX_ID), MAX_ID) });

export const isTimeIndexKey = (key: Key): boolean => key[0] === Space.SnapshotTimeIndex;

/** A time index key's two fields, read in place. */
export const decodeTimeKey = (key: Key): { time: number; id: SnapshotId } => ({ time: readU64(key, 1), id: readU64(key, 9) as SnapshotId });

/** The records of a new snapshot, and the newest-snapshot value that makes it the head. */
export function createSnapshot(id: SnapshotId, row: SnapshotRow, changes: SnapshotChangesRow, schemaChanged: boolean): Mutation[] {
  const out = [
    putRow(snapshotKey(id), row),
    putRow(snapshotChangesKey(id), changes),
    putRow(timeKey(row.time, id), {}),
    putHeadSnapshot(id),
  ];
  if (schemaChanged) out.push(putRow(schemaVersionsKey(id), { schemaVersion: row.schemaVersion } satisfies SchemaVersionsRow));
  return out;
}

/** Excision of a snapshot's records (its row, changes, schema version and time index entry). */
export function exciseSnapshot(id: SnapshotId, row: SnapshotRow): Mutation[] {
  return [del(snapshotKey(id)), del(snapshotChangesKey(id)), del(schemaVersionsKey(id)), del(timeKey(row.time, id))];
}

// ---- invariants (verify)

/** What verify keeps of the snapshots (one fact each, however many there are: the keys' names are made for a report only). */
export interface SnapshotFacts {
  /** Snapshot rows, in id order: their ids and times. */
  rows: readonly { id: number; time: number }[];
  changes: ReadonlySet<number>;
  /** Time index entries. */
  times: readonly { time: number; id: number }[];
  head: number | undefined;
}

/**
 * The records of every snapshot are whole: its changes beside its row, one time-index entry at its time, times
 * that never go backwards with ids (reads by timestamp binary-search them), and the head naming the newest.
 */
export function snapshotProblems(f: SnapshotFacts): Violation[] {
  const out: Violation[] = [];
  const rowKey = (id: number) => keyToString(snapshotKey(id));
  const timeOf = new Map(f.rows.map((r) => [r.id, r.time]));
  f.rows.forEach((r, i) => {
    if (!f.changes.has(r.id)) out.push({ invariant: 'snapshot-records-are-whole', key: rowKey(r.id), message: `snapshot ${r.id} has no changes record` });
    const before = f.rows[i - 1];
    if (before !== undefined && r.time < before.time) {
      out.push({ invariant: 'snapshot-times-never-go-back', key: rowKey(r.id), message: `snapshot ${r.id} was committed at ${r.time}, before snapshot ${before.id} (${before.time})` });
    }
  });
  for (const id of f.changes) if (!timeOf.has(id)) out.push({ invariant: 'snapshot-records-are-whole', message: `a changes record for snapshot ${id}, which has no row` });
  const indexed = new Set<number>();
  for (const t of f.times) {
    indexed.add(t.id);
    if (timeOf.get(t.id) !== t.time) out.push({ invariant: 'time-index-equals-the-snapshots', key: keyToString(timeKey(t.time, t.id)), message: `the time index puts snapshot ${t.id} at ${t.time}; its row says ${timeOf.get(t.id) ?? 'nothing (no row)'}` });
  }
  for (const r of f.rows) if (!indexed.has(r.id)) out.push({ invariant: 'time-index-equals-the-snapshots', key: rowKey(r.id), message: `snapshot ${r.id} is not in the time index` });
  const newest = f.rows.at(-1)?.id;
  if (f.head !== newest) out.push({ invariant: 'head-is-the-newest-snapshot', message: `the head names snapshot ${f.head ?? 'nothing'}; the newest snapshot row is ${newest ?? 'none'}` });
  return out;
}

/**
 * Every snapshot a version names (its begin, its end) has its record, or lies below retain-from where
 * excision may have removed it: a reader at a named snapshot would otherwise find no snapshot there.
 */
export function referencedSnapshotProblems(referenced: ReadonlyMap<number, string>, existing: ReadonlySet<number>, retainFrom: number): Violation[] {
  const out: Violation[] = [];
  for (const [id, key] of referenced) {
    if (id >= retainFrom && !existing.has(id)) out.push({ invariant: 'named-snapshots-exist', key, message: `snapshot ${id} is named here (at or above retain-from ${retainFrom}) but has no record` });
  }
  return out;
}

/** The newest snapshot's counters are above every id in use: the next commit allocates from them. */
export function counterProblems(head: Pick<SnapshotRow, 'nextCatalogId' | 'nextFileId'> | undefined, maxCatalogId: number, maxFileId: number): Violation[] {
  if (head === undefined) return [];
  const out: Violation[] = [];
  if (head.nextCatalogId <= maxCatalogId) out.push({ invariant: 'counters-above-every-id', message: `next_catalog_id is ${head.nextCatalogId}, but catalog id ${maxCatalogId} is in use` });
  if (head.nextFileId <= maxFileId) out.push({ invariant: 'counters-above-every-id', message: `next_file_id is ${head.nextFileId}, but file id ${maxFileId} is in use` });
  return out;
}
