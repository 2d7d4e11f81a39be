// A Strata table as an Iceberg v2 table at one snapshot: its metadata JSON, and the manifest lists and manifests
// it names, written to the store under `iceberg/` when first asked for and reused after (docs/DESIGN.md §9).
// Everything is read from one view at the snapshot asked for: its history up to there is immutable, so what is
// written for it never needs rewriting.
import type { CatalogId, SnapshotId } from '../../keys/ids.js';
import type { ColumnStats } from '../../keys/file-column-stats.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { columnTree } from '../read/reader.js';
import type { DataFileInfo, DeleteFileInfo } from '../read/records.js';
import type { ObjectStore } from '../store/object-store.js';
import { type EntryStatus, type ManifestEntry, type ManifestFile, manifestBytes, manifestListBytes } from './avro.js';
import { bounds } from './bounds.js';
import { fileUri } from './file-uri.js';
import { digest } from './object-names.js';
import { manifestName, planTable, type Tag } from './table-plan.js';
import type { ManifestKey, PlannedSnapshot } from './table-snapshots.js';
import type { ServedObjects, Written } from './served-objects.js';
import { type IcebergSchema, type IcebergType, lastColumnId } from './types.js';


export interface TableMetadata {
  'format-version': 2;
  'table-uuid': string;
  location: string;
  'last-sequence-number': number;
  'last-updated-ms': number;
  'last-column-id': number;
  'current-schema-id': number;
  schemas: IcebergSchema[];
  'default-spec-id': 0;
  'partition-specs': [{ 'spec-id': 0; fields: [] }];
  'last-partition-id': 999;
  'default-sort-order-id': 0;
  'sort-orders': [{ 'order-id': 0; fields: [] }];
  properties: Record<string, string>;
  'current-snapshot-id'?: number;
  snapshots: IcebergSnapshot[];
  'snapshot-log': { 'snapshot-id': number; 'timestamp-ms': number }[];
  'metadata-log': [];
  refs: Record<string, { 'snapshot-id': number; type: 'branch' | 'tag' }>;
}

export interface IcebergSnapshot {
  'snapshot-id': number;
  'parent-snapshot-id'?: number;
  'sequence-number': number;
  'timestamp-ms': number;
  'manifest-list': string;
  summary: Record<string, string>;
  'schema-id': number;
}

export interface IcebergTable {
  metadataLocation: string;
  metadata: TableMetadata;
}

/** Makes Iceberg's copy of a delete file (the SQL layer's position-deletes.ts): its bytes. */
export interface PositionDeleteCopies {
  positionDeleteCopy(deletes: DeleteFileInfo, data: DataFileInfo, dataLocation: string): Promise<Uint8Array>;
}

/** What a table at a snapshot is read through: the view, the store its files are in and Iceberg's go to. */
export interface IcebergSource {
  view: ReadView;
  store: ObjectStore;
  dataPath: string;
  deletes: PositionDeleteCopies;
  /** What this process already knows of the objects and tables it served (one per catalog). */
  served: ServedObjects<IcebergTable>;
}

/** The table `tableId` (named `name` for messages) at snapshot `at`, as Iceberg metadata written to the store. */
export async function icebergTable(src: IcebergSource, name: string, tableId: CatalogId, at: SnapshotId): Promise<IcebergTable> {
  const { view, store, served } = src;
  const table = (await q.tableAt(view, at, tableId))!;
  const retainFrom = (await q.retainFrom(view)).snapshot;
  const tags: Tag[] = [];
  for await (const t of q.tags(view)) if (t.snapshot <= at) tags.push({ name: t.name, snapshot: t.snapshot });
  const cacheKey = JSON.stringify([tableId, at, retainFrom, tags]);
  // A copy: what the caller does with its metadata must not change what the next load is given.
  const known = served.table(cacheKey);
  if (known !== undefined) return structuredClone(known);

  const plan = await planTable(view, store, name, tableId, at, retainFrom, tags);
  await served.learn(plan.base);
  const url = (key: string) => fileUri(store.url(key));
  const dataUrl = (f: DataFileInfo) => url(`${src.dataPath}${f.path}`);
  const dataById = new Map(plan.data.map((f) => [f.id as number, f]));
  const deleteById = new Map(plan.deletes.map((f) => [f.id as number, f]));

  /** A manifest's entries: what it holds is fixed by its key, so it is made with the schema of the snapshot that fixed it. */
  const entries = async (key: ManifestKey, schema: IcebergSchema): Promise<ManifestEntry[]> => {
    const status = key.cut === 0 ? 1 : 0;
    if (key.content === 'data') {
      const types = fieldTypes(schema.fields);
      const files = plan.members(key).map((v) => dataById.get(v.id)!);
      const stats = await q.fileColumnStats(view, tableId, files.map((f) => ({ id: f.id, begin: f.beginSnapshot })));
      return files.map((f) => dataEntry(f, status, dataUrl(f), stats.get(f.id) ?? [], types));
    }
    return plan.members(key).map((v) => {
      const d = deleteById.get(v.id)!;
      const copy = copies.get(d.id)!;
      return deleteEntry(d, status, url(copy.key), copy.size, dataUrl(dataById.get(d.dataFileId)!));
    });
  };

  // Each delete file's copy, made unless the store has it, even when the manifest naming it is there: a copy
  // lost from the store is made again rather than left named by a manifest (each looked at once a process).
  const copies = new Map<number, Written>();
  const named = [...plan.manifests.values()].filter((m) => m.key.content === 'deletes').flatMap((m) => plan.members(m.key));
  await served.all(
    named.map((v) => async () => {
      const d = deleteById.get(v.id)!;
      const target = dataById.get(d.dataFileId)!;
      copies.set(d.id, await served.putChecksummed(plan.deleteCopy(d), 'parquet', () => src.deletes.positionDeleteCopy(d, target, dataUrl(target))));
    }),
  );

  // Every manifest written once, eight at a time: most are named by many snapshots.
  const written = new Map<string, Written>();
  await served.all(
    [...plan.manifests].map(([n, { key, prefix }]) => async () => {
      const schema = plan.schemaAt(Math.max(key.group, key.cut));
      written.set(n, await served.putChecksummed(prefix, 'avro', async () => manifestBytes(schema, key.content, await entries(key, schema))));
    }),
  );
  const snapshots = await served.all(
    plan.snapshots.map((p) => async () => {
      const listed = p.manifests.map((key) => {
        const files = plan.members(key);
        const n = manifestName(key);
        const m = written.get(n)!;
        return manifestFile(url(m.key), m.size, key, files.length, files.reduce((k, f) => k + f.records, 0));
      });
      const list = await served.putChecksummed(plan.lists.get(p.id)!, 'avro', async () => manifestListBytes(p.id, p.parent, p.id, listed));
      return snapshotOf(p, plan.facts.get(p.id)!.time, url(list.key), plan.schemaAt(p.id)['schema-id']);
    }),
  );

  const head = snapshots.at(-1);
  const refs: TableMetadata['refs'] = head === undefined ? {} : { main: { 'snapshot-id': head['snapshot-id'], type: 'branch' } };
  for (const t of tags) {
    const own = [...snapshots].reverse().find((s) => s['snapshot-id'] <= t.snapshot);
    if (own !== undefined) refs[t.name] = { 'snapshot-id': own['snapshot-id'], type: 'tag' };
  }
  const metadata: TableMetadata = {
    'format-version': 2,
    'table-uuid': table.row.uuid,
    location: url(`${src.dataPath}${table.row.name}`),
    'last-sequence-number': head?.['sequence-number'] ?? 0,
    'last-updated-ms': head?.['timestamp-ms'] ?? (await q.snapshotRow(view, at))!.time,
    'last-column-id': Math.max(lastColumnId(columnTree(plan.versions, null)), ...plan.versions.map((v) => v.id as number)),
    'current-schema-id': plan.schemaAt(at)['schema-id'],
    schemas: [...plan.schemas.values()].sort((a, b) => a['schema-id'] - b['schema-id']),
    'default-spec-id': 0,
    'partition-specs': [{ 'spec-id': 0, fields: [] }],
    'last-partition-id': 999,
    'default-sort-order-id': 0,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    properties: {},
    ...(head === undefined ? {} : { 'current-snapshot-id': head['snapshot-id'] }),
    snapshots,
    'snapshot-log': snapshots.map((s) => ({ 'snapshot-id': s['snapshot-id'], 'timestamp-ms': s['timestamp-ms'] })),
    'metadata-log': [],
    refs,
  };
  const text = JSON.stringify(metadata);
  // Named for the snapshot, the horizon it was made under (GC removes those of an older one: they name lists
  // excision made obsolete) and what it holds.
  const metadataKey = `${plan.base}metadata/${at}-${retainFrom}-${digest(text)}.metadata.json`;
  await served.putOnce(metadataKey, async () => new TextEncoder().encode(text));
  const out = { metadataLocation: url(metadataKey), metadata };
  served.remember(cacheKey, structuredClone(out));
  return out;
}

/** Each field's Iceberg type by id, nested fields' too: what a bound is made in. */
function fieldTypes(fields: IcebergSchema['fields'], out = new Map<number, IcebergType>()): Map<number, IcebergType> {
  for (const f of fields) {
    out.set(f.id, f.type);
    if (typeof f.type === 'object' && f.type.type === 'struct') fieldTypes(f.type.fields, out);
  }
  return out;
}

/** The same bytes as the Buffer avsc writes `bytes` from, not a copy. */
const asBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

const idCounts = (stats: readonly ColumnStats[], of: (c: ColumnStats) => number | null) => {
  const out = stats.flatMap((c) => (of(c) === null ? [] : [{ key: c.columnId as number, value: of(c)! }]));
  return out.length === 0 ? null : out;
};

function dataEntry(f: DataFileInfo, status: EntryStatus, location: string, stats: readonly ColumnStats[], types: Map<number, IcebergType>): ManifestEntry {
  const lower: { key: number; value: Buffer }[] = [];
  const upper: { key: number; value: Buffer }[] = [];
  for (const c of stats) {
    const type = types.get(c.columnId);
    const b = typeof type === 'string' ? bounds(type, c) : undefined;
    if (b !== undefined) {
      lower.push({ key: c.columnId, value: asBuffer(b.lower) });
      upper.push({ key: c.columnId, value: asBuffer(b.upper) });
    }
  }
  const metrics = {
    value_counts: idCounts(stats, (c) => c.valueCount),
    null_value_counts: idCounts(stats, (c) => c.nullCount),
    lower_bounds: lower.length === 0 ? null : lower,
    upper_bounds: upper.length === 0 ? null : upper,
  };
  return entry(status, f.beginSnapshot, 0, location, f.recordCount, f.fileSizeBytes, metrics, null);
}

function deleteEntry(d: DeleteFileInfo, status: EntryStatus, location: string, size: number, dataLocation: string): ManifestEntry {
  return entry(status, d.beginSnapshot, 1, location, d.deleteCount, size, NO_METRICS, dataLocation);
}

type Metrics = Pick<ManifestEntry['data_file'], 'value_counts' | 'null_value_counts' | 'lower_bounds' | 'upper_bounds'>;
const NO_METRICS: Metrics = { value_counts: null, null_value_counts: null, lower_bounds: null, upper_bounds: null };

/**
 * An entry with its snapshot and sequence numbers written out (an existing entry must not inherit them). One
 * literal, every field named: V8 built `{ ...template, more }` over twenty times slower (10,000 of them: 42 ms
 * against 1–7), and a manifest holds an entry per file.
 */
function entry(status: EntryStatus, begin: number, content: 0 | 1, location: string, records: number, size: number, m: Metrics, referenced: string | null): ManifestEntry {
  return {
    status,
    snapshot_id: begin,
    sequence_number: begin,
    file_sequence_number: begin,
    data_file: {
      content,
      file_path: location,
      file_format: 'parquet',
      partition: {},
      record_count: records,
      file_size_in_bytes: size,
      column_sizes: null,
      value_counts: m.value_counts,
      null_value_counts: m.null_value_counts,
      nan_value_counts: null,
      lower_bounds: m.lower_bounds,
      upper_bounds: m.upper_bounds,
      sort_order_id: null,
      referenced_data_file: referenced,
    },
  };
}

function manifestFile(location: string, length: number, m: ManifestKey, files: number, rows: number): ManifestFile {
  const added = m.cut === 0;
  return {
    manifest_path: location,
    manifest_length: length,
    partition_spec_id: 0,
    content: m.content === 'data' ? 0 : 1,
    sequence_number: added ? m.group : m.cut,
    min_sequence_number: m.group,
    added_snapshot_id: added ? m.group : m.cut,
    added_files_count: added ? files : 0,
    existing_files_count: added ? 0 : files,
    deleted_files_count: 0,
    added_rows_count: added ? rows : 0,
    existing_rows_count: added ? 0 : rows,
    deleted_rows_count: 0,
  };
}

function snapshotOf(p: PlannedSnapshot, time: number, manifestList: string, schemaId: number): IcebergSnapshot {
  return {
    'snapshot-id': p.id,
    ...(p.parent === null ? {} : { 'parent-snapshot-id': p.parent }),
    'sequence-number': p.id,
    'timestamp-ms': time,
    'manifest-list': manifestList,
    summary: { operation: p.operation, ...p.summary },
    'schema-id': schemaId,
  };
}
