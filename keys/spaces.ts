// The first byte of every key names its space: one per DuckLake catalog table, plus secondary indexes and
// system values, so every catalog table is one contiguous key range. (The first brief called this byte the
// key's "tag", docs/DESIGN.md §2; here it is its space, so that "tag" only ever means a user's named pin on a
// snapshot.) Space bytes are part of the on-disk format: never renumber one; add new spaces in the gaps.
// Which module owns each space — writes its keys, decodes its rows — is in the table at the end of
// ARCHITECTURE.md's keyspace section; nothing outside keys/ names a space.

/**
 * - versioned: key ends in begin_snapshot, value carries end_snapshot (null while current); a new version is a
 *   new key and the old version's value gets its end.
 * - append-only: written once, visible from begin_snapshot on; data and delete files may later get an end.
 * - singleton: no snapshot in the key, overwritten in place, no time travel.
 * - system: process-independent bookkeeping of the log itself (applied sequence, catalog identity).
 */
export type Category = 'versioned' | 'append-only' | 'singleton' | 'system';

/** A fixed-width big-endian u64, or a UTF-8 name closed by 0x00 (names never contain NUL). */
export type FieldKind = 'u64' | 'name';

export interface SpaceSpec {
  readonly byte: number;
  readonly name: string;
  readonly category: Category;
  /** Identifying fields, in key order, before begin_snapshot. */
  readonly fields: readonly FieldKind[];
  /** Whether the key ends in begin_snapshot (true for versioned and append-only). */
  readonly hasBegin: boolean;
  /** For secondary indexes: the spaces whose rows this index points at (written and excised with them). */
  readonly indexes?: readonly Space[];
}

export enum Space {
  Snapshot = 0x01,
  SnapshotChanges = 0x02,
  SchemaVersions = 0x03,
  SnapshotTimeIndex = 0x04,
  Schema = 0x10,
  Table = 0x11,
  Column = 0x12,
  View = 0x13,
  Macro = 0x14,
  PartitionInfo = 0x15,
  ObjectTag = 0x16,
  ColumnTag = 0x17,
  DataFile = 0x20,
  DeleteFile = 0x21,
  FileColumnStats = 0x22,
  DataFileManifest = 0x23,
  DataFileManifestPart = 0x24,
  NameMapping = 0x25,
  DataFileBase = 0x26,
  DataFileBasePart = 0x27,
  Metadata = 0x30,
  TableStats = 0x31,
  TableColumnStats = 0x32,
  ColumnIdFloor = 0x33,
  SchemaNameIndex = 0x40,
  RelationNameIndex = 0x41,
  FileTableIndex = 0x42,
  EndIndex = 0x43,
  FilePathIndex = 0x44,
  DataFileEndIndex = 0x45,
  DataFileEndedAt = 0x46,
  FilePathRef = 0x47,
  FileIdRange = 0x48,
  SnapshotTag = 0x50,
  Lease = 0x51,
  ReclaimSchedule = 0x52,
  ExcisionJob = 0x53,
  System = 0xf0,
}

const spec = (
  space: Space,
  category: Category,
  fields: readonly FieldKind[],
  extra: { indexes?: readonly Space[] } = {},
): SpaceSpec => ({
  byte: space,
  name: Space[space],
  category,
  fields,
  hasBegin: category === 'versioned' || category === 'append-only',
  ...extra,
});

export const SPACE_SPECS: ReadonlyMap<Space, SpaceSpec> = new Map(
  [
    // ducklake_snapshot / _snapshot_changes / _schema_versions: the snapshot id *is* begin_snapshot.
    spec(Space.Snapshot, 'append-only', []),
    spec(Space.SnapshotChanges, 'append-only', []),
    spec(Space.SchemaVersions, 'append-only', []),
    // Snapshots by commit time: [time][snapshot id], so "the newest snapshot at or before T" is one reverse
    // seek, and equal times order by id.
    spec(Space.SnapshotTimeIndex, 'append-only', ['u64'], { indexes: [Space.Snapshot] }), // snapshot_time (ms)
    spec(Space.Schema, 'versioned', ['u64']), // schema_id
    spec(Space.Table, 'versioned', ['u64']), // table_id
    spec(Space.Column, 'versioned', ['u64', 'u64']), // table_id, column_id
    spec(Space.View, 'versioned', ['u64']), // view_id
    spec(Space.Macro, 'versioned', ['u64']), // macro_id
    spec(Space.PartitionInfo, 'versioned', ['u64', 'u64']), // table_id, partition_id
    spec(Space.ObjectTag, 'versioned', ['u64', 'name']), // object_id, key
    spec(Space.ColumnTag, 'versioned', ['u64', 'u64', 'name']), // table_id, column_id, key
    spec(Space.DataFile, 'append-only', ['u64', 'u64']), // table_id, data_file_id
    spec(Space.DeleteFile, 'append-only', ['u64', 'u64']), // table_id, delete_file_id
    // One value per data file with the stats of all its columns (file-column-stats.ts).
    spec(Space.FileColumnStats, 'append-only', ['u64', 'u64']), // table_id, data_file_id
    // The data files one commit added to one table, in one value (as an Iceberg manifest): a listing reads a
    // value per commit instead of an entry per file. With DataFileEndIndex it answers "the files at S".
    spec(Space.DataFileManifest, 'append-only', ['u64'], { indexes: [Space.DataFile] }), // table_id
    // The rest of a commit's manifest past its first part, in parts: no value grows with the commit.
    spec(Space.DataFileManifestPart, 'singleton', ['u64', 'u64', 'u64'], { indexes: [Space.DataFile] }), // table_id, begin_snapshot, part
    // ducklake_column_mapping and ducklake_name_mapping: how a data file without field ids is read, one value
    // per mapped file (name-mappings.ts).
    spec(Space.NameMapping, 'append-only', ['u64', 'u64']), // table_id, data_file_id
    // Every data file visible at one snapshot of a table that has ended many (a base): a listing at S reads
    // the newest base at or before S and the manifests and ends after it, not every file the table ever had.
    spec(Space.DataFileBase, 'append-only', ['u64'], { indexes: [Space.DataFile] }), // table_id
    spec(Space.DataFileBasePart, 'singleton', ['u64', 'u64', 'u64'], { indexes: [Space.DataFile] }), // table_id, begin_snapshot, part
    spec(Space.Metadata, 'singleton', ['name']), // key (global scope)
    spec(Space.TableStats, 'singleton', ['u64']), // table_id
    spec(Space.TableColumnStats, 'singleton', ['u64', 'u64']), // table_id, column_id
    // Past every column id excision took from a live table: its columns' versions held those ids until then.
    spec(Space.ColumnIdFloor, 'singleton', ['u64']), // table_id
    // Name indexes make `table(schema, name)` at S one seek whatever the history depth: the newest version
    // of a name at or below S is the only candidate, because versions of one name never overlap.
    spec(Space.SchemaNameIndex, 'versioned', ['name'], { indexes: [Space.Schema] }),
    spec(Space.RelationNameIndex, 'versioned', ['u64', 'name'], { indexes: [Space.Table, Space.View] }), // schema_id, name
    // Which table a data file belonged to, a key per file, before decision 0068 (FileIdRange since): read
    // and deleted by excision, never written.
    spec(Space.FileTableIndex, 'append-only', ['u64'], { indexes: [Space.DataFile] }), // data_file_id
    // Every version that has an end, by end: [end][the version's whole key] (see end-index.ts). Excision
    // scans it up to retain-from, so its cost follows what it removes, not what the catalog holds.
    spec(Space.EndIndex, 'singleton', ['u64'], {
      indexes: [Space.Schema, Space.Table, Space.Column, Space.View, Space.DataFile, Space.DeleteFile, Space.SchemaNameIndex, Space.RelationNameIndex],
    }), // end_snapshot, then the key
    // Which file rows named an object path before decision 0067 (value: their file ids), one value per path
    // that each commit naming it read and rewrote. Read and trimmed by excision; commits write FilePathRef.
    spec(Space.FilePathIndex, 'singleton', ['name'], { indexes: [Space.DataFile, Space.DeleteFile] }), // path
    // The end of every data file that has one, by table and file id: merged with the manifests, which are in
    // file-id order too (ids grow with snapshots; a restore brings files back under new ids).
    spec(Space.DataFileEndIndex, 'singleton', ['u64', 'u64'], { indexes: [Space.DataFile] }), // table_id, data_file_id
    // The same ends by table and end: the files a listing from a base must leave out are those that ended
    // after the base, one range.
    spec(Space.DataFileEndedAt, 'singleton', ['u64', 'u64', 'u64'], { indexes: [Space.DataFile] }), // table_id, end_snapshot, data_file_id
    // Which file rows name an object path, a key each: reclamation deletes an object only when none is left
    // under its path (a restore registers the same path under a new file id). Written blind, so a commit
    // reads nothing to register a file, and two commits naming one path do not meet (decision 0067).
    spec(Space.FilePathRef, 'singleton', ['name', 'u64'], { indexes: [Space.DataFile, Space.DeleteFile] }), // path, file id
    // Which table a data file belongs to, so a file id alone can be checked (e.g. a delete file aimed at
    // another table's data file): a key per run of consecutive ids one commit added to one table (value: the
    // table, the run's last id, the commit), found by the greatest first id at or below the id (decision 0068).
    spec(Space.FileIdRange, 'singleton', ['u64'], { indexes: [Space.DataFile] }), // first data_file_id
    // Named, immutable pins on snapshots. Written by system entries: a tag advances the kv sequence, not
    // the snapshot id.
    spec(Space.SnapshotTag, 'singleton', ['name']), // tag name
    // Durable pins of snapshot-pinned readers, honoured by GC in every process.
    spec(Space.Lease, 'singleton', ['name']), // lease id
    // Object paths whose last row was excised, with when: deleted after the grace period.
    spec(Space.ReclaimSchedule, 'singleton', ['name']), // path, relative to the data path
    // One record per excision job: its progress while it runs (so a rerun resumes it), its audit after.
    spec(Space.ExcisionJob, 'singleton', ['u64']), // job id
    spec(Space.System, 'system', ['u64']), // SystemKey
  ].map((s) => [s.byte as Space, s]),
);

export function spaceSpec(space: Space): SpaceSpec {
  const s = SPACE_SPECS.get(space);
  if (!s) throw new RangeError(`unknown key space 0x${(space as number).toString(16)}`);
  return s;
}
