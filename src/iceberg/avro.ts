// Iceberg's manifests and manifest lists as Avro object container files, written by avsc. Iceberg readers
// find every field by its `field-id`, which avsc's Type does not carry into the file's header, so the encoder
// is given the schema itself: it writes that JSON as `avro.schema` verbatim. Longs are written with avsc's
// default long type, which refuses a number past 2^53 rather than writing it wrong; every long Strata
// writes (ids, sequence numbers, sizes, counts) is a safe integer.
import { createHash } from 'node:crypto';
import avro from 'avsc';
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
export function manifestBytes(schema: IcebergSchema, content: Content, entries: readonly ManifestEntry[]): Promise<Uint8Array> {
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
export function manifestListBytes(snapshotId: number, parentId: number | null, sequenceNumber: number, manifests: readonly ManifestFile[]): Promise<Uint8Array> {
  return containerFile(MANIFEST_FILE, manifests, {
    'snapshot-id': String(snapshotId),
    'parent-snapshot-id': parentId === null ? 'null' : String(parentId),
    'sequence-number': String(sequenceNumber),
    'format-version': '2',
  });
}

async function containerFile(schema: AvroSchema, records: readonly unknown[], metadata: Record<string, string>): Promise<Uint8Array> {
  // avsc's typings know neither field attributes in a schema nor the encoder's `metadata` option (its
  // BlockEncoder takes both).
  // A sync marker fixed by the header rather than drawn at random: the same manifest made twice (a second
  // process, a lost object made again) is the same bytes, so the checksum in its name and every list naming
  // it hold. Avro asks only that it separate blocks; readers find it in the header.
  const syncMarker = createHash('sha256').update(JSON.stringify([schema, metadata, records.length])).digest().subarray(0, 16);
  const options = { codec: 'null', writeHeader: true, syncMarker, metadata: Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, Buffer.from(v)])) };
  const encoder = new avro.streams.BlockEncoder(schema as unknown as avro.Schema, options as ConstructorParameters<typeof avro.streams.BlockEncoder>[1]);
  const chunks: Buffer[] = [];
  encoder.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    encoder.on('end', resolve);
    encoder.on('error', reject);
  });
  for (const r of records) encoder.write(r);
  encoder.end();
  await done;
  return new Uint8Array(Buffer.concat(chunks));
}
