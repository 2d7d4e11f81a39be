// Iceberg's manifests and manifest lists as Avro object container files, written by avsc. Longs are written with avsc's
// default long type, which refuses a number past 2^53 rather than writing it wrong; every long Strata
// writes (ids, sequence numbers, sizes, counts) is a safe integer.
import type * as Avsc from 'avsc';
import { nodeCrypto, onFirstUse } from '../on-first-use.js';
import type { IcebergSchema } from './types.js';

type AvroSchema = Record<string, unknown>;

const optional = (name: string, id: number, type: unknown): AvroSchema => ({ name, type: ['null', type], default: null, 'field-id': id });
const required = (name: string, id: number, type: unknown): AvroSchema => ({ name, type, 'field-id': id });

/** Iceberg's map<int, V> in Avro: an array of key/value records, marked as a map. */
function intMap(name: string, id: number, keyId: number, valueId: number, value: string): AvroSchema {
  return optional(name, id, {
    type: 'array',
    logicalType: 'map',
    items: { type: 'record', name: `k${keyId}_v${valueId}`, fields: [required('key', keyId, 'int'), required('value', valueId, value)] },
  });
}

/** The v2 `manifest_entry` of an unpartitioned table (its partition tuple is an empty record). */
export const MANIFEST_ENTRY: AvroSchema = {
  type: 'record',
  name: 'manifest_entry',
  fields: [
    required('status', 0, 'int'),
    optional('snapshot_id', 1, 'long'),
    optional('sequence_number', 3, 'long'),
    optional('file_sequence_number', 4, 'long'),
    required('data_file', 2, {
      type: 'record',
      name: 'r2',
      fields: [
        required('content', 134, 'int'),
        required('file_path', 100, 'string'),
        required('file_format', 101, 'string'),
        required('partition', 102, { type: 'record', name: 'r102', fields: [] }),
        required('record_count', 103, 'long'),
        required('file_size_in_bytes', 104, 'long'),
        intMap('column_sizes', 108, 117, 118, 'long'),
        intMap('value_counts', 109, 119, 120, 'long'),
        intMap('null_value_counts', 110, 121, 122, 'long'),
        intMap('nan_value_counts', 137, 138, 139, 'long'),
        intMap('lower_bounds', 125, 126, 127, 'bytes'),
        intMap('upper_bounds', 128, 129, 130, 'bytes'),
        optional('sort_order_id', 140, 'int'),
        optional('referenced_data_file', 143, 'string'),
      ],
    }),
  ],
};

/** The v2 `manifest_file` of a manifest list. */
export const MANIFEST_FILE: AvroSchema = {
  type: 'record',
  name: 'manifest_file',
  fields: [
    required('manifest_path', 500, 'string'),
    required('manifest_length', 501, 'long'),
    required('partition_spec_id', 502, 'int'),
    required('content', 517, 'int'),
    required('sequence_number', 515, 'long'),
    required('min_sequence_number', 516, 'long'),
    required('added_snapshot_id', 503, 'long'),
    required('added_files_count', 504, 'int'),
    required('existing_files_count', 505, 'int'),
    required('deleted_files_count', 506, 'int'),
    required('added_rows_count', 512, 'long'),
    required('existing_rows_count', 513, 'long'),
    required('deleted_rows_count', 514, 'long'),
  ],
};

export type EntryStatus = 0 | 1 | 2; // existing, added, deleted
export type Content = 'data' | 'deletes';

export interface ManifestEntry {
  status: EntryStatus;
  snapshot_id: number | null;
  sequence_number: number | null;
  file_sequence_number: number | null;
  data_file: {
    content: 0 | 1; // data, position deletes
    file_path: string;
    file_format: 'parquet';
    partition: Record<string, never>;
    record_count: number;
    file_size_in_bytes: number;
    column_sizes: null;
    value_counts: { key: number; value: number }[] | null;
    null_value_counts: { key: number; value: number }[] | null;
    nan_value_counts: { key: number; value: number }[] | null;
    lower_bounds: { key: number; value: Buffer }[] | null;
    upper_bounds: { key: number; value: Buffer }[] | null;
    sort_order_id: number | null;
    referenced_data_file: string | null;
  };
}

export interface ManifestFile {
  manifest_path: string;
  manifest_length: number;
  partition_spec_id: number;
  content: 0 | 1;
  sequence_number: number;
  min_sequence_number: number;
  added_snapshot_id: number;
  added_files_count: number;
  existing_files_count: number;
  deleted_files_count: number;
  added_rows_count: number;
  existing_rows_count: number;
  deleted_rows_count: number;
}

/** A manifest: its entries, and the key-value metadata the v2 spec requires of it. */
export function manifestBytes(schema: IcebergSchema, content: Content, entries: readonly ManifestEntry[]): Uint8Array {
  return containerFile(MANIFEST_ENTRY, entries, {
    schema: JSON.stringify(schema),
    'schema-id': String(schema['schema-id']),
    'partition-spec': '[]',
    'partition-spec-id': '0',
    'format-version': '2',
    content,
  });
}

/** A manifest list. */
export function manifestListBytes(snapshotId: number, parentId: number | null, sequenceNumber: number, manifests: readonly ManifestFile[]): Uint8Array {
  return containerFile(MANIFEST_FILE, manifests, {
    'snapshot-id': String(snapshotId),
    'parent-snapshot-id': parentId === null ? 'null' : String(parentId),
    'sequence-number': String(sequenceNumber),
    'format-version': '2',
  });
}

// An object container file is a header and blocks, each of them an Avro record the spec defines; avsc encodes
// both. A file is made in one call, not through avsc's streaming BlockEncoder: the stream costs more per record
// than encoding it, and a manifest is written whole.
const avro = onFirstUse<typeof Avsc>('avsc');

const HEADER: AvroSchema = {
  type: 'record',
  name: 'org.apache.avro.file.Header',
  fields: [
    { name: 'magic', type: { type: 'fixed', name: 'Magic', size: 4 } },
    { name: 'meta', type: { type: 'map', values: 'bytes' } },
    { name: 'sync', type: { type: 'fixed', name: 'Sync', size: 16 } },
  ],
};
/** A block: its object count, its objects' bytes (a long length and the bytes: Avro's `bytes`) and the sync marker. */
const BLOCK: AvroSchema = {
  type: 'record',
  name: 'Block',
  fields: [
    { name: 'count', type: 'long' },
    { name: 'data', type: 'bytes' },
    { name: 'sync', type: { type: 'fixed', name: 'BlockSync', size: 16 } },
  ],
};
const MAGIC = Buffer.from([0x4f, 0x62, 0x6a, 0x01]); // 'Obj' 1

/** Each schema's avsc Type, made once: compiling one costs more than encoding a manifest of a hundred files. */
const compiled = new Map<AvroSchema, Avsc.Type>();

function typeOf(schema: AvroSchema): Avsc.Type {
  let type = compiled.get(schema);
  if (type === undefined) compiled.set(schema, (type = avro().Type.forSchema(schema as unknown as Avsc.Schema)));
  return type;
}

function containerFile(schema: AvroSchema, records: readonly unknown[], metadata: Record<string, string>): Uint8Array {
  const type = typeOf(schema);
  // A sync marker fixed by the header rather than drawn at random: the same manifest made twice (a second
  // process, a lost object made again) is the same bytes, so the checksum in its name and every list naming
  // it hold. Avro asks only that it separate blocks; readers find it in the header.
  const sync = nodeCrypto().createHash('sha256').update(JSON.stringify([schema, metadata, records.length])).digest().subarray(0, 16);
  // The schema itself, not the Type's: a Type does not keep its fields' `field-id`s, by which Iceberg readers
  // find every field.
  const meta = { 'avro.schema': JSON.stringify(schema), 'avro.codec': 'null', ...metadata };
  const parts = [typeOf(HEADER).toBuffer({ magic: MAGIC, meta: Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, Buffer.from(v)])), sync })];
  // One block of every record (a file with none has no block): manifests are read whole.
  if (records.length > 0) parts.push(typeOf(BLOCK).toBuffer({ count: records.length, data: Buffer.concat(records.map((r) => type.toBuffer(r))), sync }));
  return new Uint8Array(Buffer.concat(parts));
}
