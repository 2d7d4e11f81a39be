// One tag per DuckLake catalog table, plus secondary indexes and system values. The tag is the key's first
// byte, so every catalog table is one contiguous key range. Tag bytes are part of the on-disk format:
// never renumber one; add new tags in the gaps.

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

export interface TagSpec {
  readonly byte: number;
  readonly name: string;
  readonly category: Category;
  /** Identifying fields, in key order, before begin_snapshot. */
  readonly fields: readonly FieldKind[];
  /** Whether the key ends in begin_snapshot (true for versioned and append-only). */
  readonly hasBegin: boolean;
  /** For secondary indexes: the tags whose rows this index points at (written and excised with them). */
  readonly indexes?: readonly Tag[];
}

export enum Tag {
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
  Metadata = 0x30,
  TableStats = 0x31,
  TableColumnStats = 0x32,
  SchemaNameIndex = 0x40,
  RelationNameIndex = 0x41,
  FileTableIndex = 0x42,
  EndIndex = 0x43,
  FilePathIndex = 0x44,
  DataFileEndIndex = 0x45,
  SnapshotTag = 0x50,
  Lease = 0x51,
  ReclaimSchedule = 0x52,
  ExcisionJob = 0x53,
  System = 0xf0,
}

const spec = (
  tag: Tag,
  category: Category,
  fields: readonly FieldKind[],
  extra: { indexes?: readonly Tag[] } = {},
): TagSpec => ({
  byte: tag,
  name: Tag[tag],
  category,
  fields,
  hasBegin: category === 'versioned' || category === 'append-only',
  ...extra,
});

export const TAG_SPECS: ReadonlyMap<Tag, TagSpec> = new Map(
  [
    // ducklake_snapshot / _snapshot_changes / _schema_versions: the snapshot id *is* begin_snapshot.
    spec(Tag.Snapshot, 'append-only', []),
    spec(Tag.SnapshotChanges, 'append-only', []),
    spec(Tag.SchemaVersions, 'append-only', []),
    // Snapshots by commit time: [time][snapshot id], so "the newest snapshot at or before T" is one reverse
    // seek, and equal times order by id.
    spec(Tag.SnapshotTimeIndex, 'append-only', ['u64'], { indexes: [Tag.Snapshot] }), // snapshot_time (ms)
    spec(Tag.Schema, 'versioned', ['u64']), // schema_id
    spec(Tag.Table, 'versioned', ['u64']), // table_id
    spec(Tag.Column, 'versioned', ['u64', 'u64']), // table_id, column_id
    spec(Tag.View, 'versioned', ['u64']), // view_id
    spec(Tag.Macro, 'versioned', ['u64']), // macro_id
    spec(Tag.PartitionInfo, 'versioned', ['u64', 'u64']), // table_id, partition_id
    spec(Tag.ObjectTag, 'versioned', ['u64', 'name']), // object_id, key
    spec(Tag.ColumnTag, 'versioned', ['u64', 'u64', 'name']), // table_id, column_id, key
    spec(Tag.DataFile, 'append-only', ['u64', 'u64']), // table_id, data_file_id
    spec(Tag.DeleteFile, 'append-only', ['u64', 'u64']), // table_id, delete_file_id
    spec(Tag.FileColumnStats, 'append-only', ['u64', 'u64', 'u64']), // table_id, data_file_id, column_id
    // The data files one commit added to one table, in one value (as an Iceberg manifest): a listing reads a
    // value per commit instead of an entry per file. With DataFileEndIndex it answers "the files at S".
    spec(Tag.DataFileManifest, 'append-only', ['u64'], { indexes: [Tag.DataFile] }), // table_id
    spec(Tag.Metadata, 'singleton', ['name']), // key (global scope)
    spec(Tag.TableStats, 'singleton', ['u64']), // table_id
    spec(Tag.TableColumnStats, 'singleton', ['u64', 'u64']), // table_id, column_id
    // Name indexes make `table(schema, name)` at S one seek whatever the history depth: the newest version
    // of a name at or below S is the only candidate, because versions of one name never overlap.
    spec(Tag.SchemaNameIndex, 'versioned', ['name'], { indexes: [Tag.Schema] }),
    spec(Tag.RelationNameIndex, 'versioned', ['u64', 'name'], { indexes: [Tag.Table, Tag.View] }), // schema_id, name
    // Which table a data file belongs to, so a file id alone can be checked (e.g. a delete file aimed at
    // another table's data file).
    spec(Tag.FileTableIndex, 'append-only', ['u64'], { indexes: [Tag.DataFile] }), // data_file_id
    // Every version that has an end, by end: [end][the version's whole key] (see end-index.ts). Excision
    // scans it up to retain-from, so its cost follows what it removes, not what the catalog holds.
    spec(Tag.EndIndex, 'singleton', ['u64'], {
      indexes: [Tag.Schema, Tag.Table, Tag.Column, Tag.View, Tag.DataFile, Tag.DeleteFile, Tag.SchemaNameIndex, Tag.RelationNameIndex],
    }), // end_snapshot, then the key
    // Which file rows name an object path (value: their file ids): reclamation deletes an object only when
    // no row is left (a restore registers the same path under a new file id). One key per path, so a batch
    // of paths is one multi-get, in commits and in excision alike.
    spec(Tag.FilePathIndex, 'singleton', ['name'], { indexes: [Tag.DataFile, Tag.DeleteFile] }), // path
    // The end of every data file that has one, by table and file id: merged with the manifests, which are in
    // file-id order too (ids grow with snapshots; a restore brings files back under new ids).
    spec(Tag.DataFileEndIndex, 'singleton', ['u64', 'u64'], { indexes: [Tag.DataFile] }), // table_id, data_file_id
    // Named, immutable pins on snapshots. Written by system entries: a tag advances the kv sequence, not
    // the snapshot id.
    spec(Tag.SnapshotTag, 'singleton', ['name']), // tag name
    // Durable pins of snapshot-pinned readers, honoured by GC in every process.
    spec(Tag.Lease, 'singleton', ['name']), // lease id
    // Object paths whose last row was excised, with when: deleted after the grace period.
    spec(Tag.ReclaimSchedule, 'singleton', ['name']), // path, relative to the data path
    // One record per excision job: its progress while it runs (so a rerun resumes it), its audit after.
    spec(Tag.ExcisionJob, 'singleton', ['u64']), // job id
    spec(Tag.System, 'system', ['u64']), // SystemKey
  ].map((s) => [s.byte as Tag, s]),
);

export function tagSpec(tag: Tag): TagSpec {
  const s = TAG_SPECS.get(tag);
  if (!s) throw new RangeError(`unknown tag 0x${(tag as number).toString(16)}`);
  return s;
}

/** Keys under Tag.System. */
export enum SystemKey {
  /** The kv sequence of the last log entry applied to this index. */
  AppliedSeq = 1,
  /** The catalog's identity, copied from the first log entry; an index never serves another store. */
  CatalogIdentity = 2,
  /** The newest snapshot id, written in the batch that creates it: "latest" is one point read of a view. */
  HeadSnapshot = 3,
  /** The current exclusive writer's epoch: entries written under an older one are not applied. */
  WriterEpoch = 4,
  /** Retain-from: snapshots below it (untagged) are out of retention. */
  RetainFrom = 5,
  /** The `txn` of the last log entry applied to this index: tells it from another entry of that number. */
  AppliedTxn = 6,
}
