// Manifests and manifest lists as Avro files that readers nobody here wrote decode: Debian's avrocat (Avro C)
// reads every record, and avsc reading with its BigInt long type (as a reader of others' files must) finds
// Iceberg's field ids and the v2 key-value metadata in the header.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { type ManifestEntry, type ManifestFile, manifestBytes, manifestListBytes } from '../../src/iceberg/avro.js';
import type { IcebergSchema } from '../../src/iceberg/types.js';
import { tempDir } from '../helpers.js';

const schema: IcebergSchema = { type: 'struct', 'schema-id': 2, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] };

const longs = avro.types.LongType.__with({
  fromBuffer: (b: Buffer) => b.readBigInt64LE(),
  toBuffer: (n: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(n);
    return b;
  },
  fromJSON: BigInt,
  toJSON: Number,
  isValid: (n: unknown) => typeof n === 'bigint',
  compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
});

/** The header's metadata and schema, and every record, as avsc reads the file with BigInt longs. */
async function readAvro(bytes: Uint8Array): Promise<{ meta: Record<string, string>; schema: unknown; records: unknown[] }> {
  const decoder = new avro.streams.BlockDecoder({ parseHook: (s: unknown) => avro.Type.forSchema(s as avro.Schema, { registry: { long: longs } }) });
  let meta: Record<string, string> = {};
  let schema: unknown;
  decoder.on('metadata', (_t: unknown, _codec: string, header: { meta: Record<string, Buffer> }) => {
    meta = Object.fromEntries(Object.entries(header.meta).map(([k, v]) => [k, v.toString()]));
    schema = JSON.parse(meta['avro.schema']!);
  });
  const records: unknown[] = [];
  decoder.on('data', (r: unknown) => records.push(r));
  const done = new Promise((resolve, reject) => decoder.on('end', resolve).on('error', reject));
  decoder.end(Buffer.from(bytes));
  await done;
  return { meta, schema, records };
}

async function avrocat(bytes: Uint8Array): Promise<unknown[]> {
  const file = join(await tempDir(), 'file.avro');
  writeFileSync(file, bytes);
  return execFileSync('avrocat', [file], { encoding: 'utf8' }).trim().split('\n').map((l) => JSON.parse(l) as unknown);
}

const entry = (id: number, begin: number): ManifestEntry => ({
  status: 1,
  snapshot_id: begin,
  sequence_number: begin,
  file_sequence_number: begin,
  data_file: {
    content: 0,
    file_path: `file:///lake/main/t/f${id}.parquet`,
    file_format: 'parquet',
    partition: {},
    record_count: 100 + id,
    file_size_in_bytes: 2 ** 40 + id,
    column_sizes: null,
    value_counts: [{ key: 1, value: 100 + id }],
    null_value_counts: [{ key: 1, value: 0 }],
    nan_value_counts: null,
    lower_bounds: [{ key: 1, value: Buffer.from('0100000000000000', 'hex') }],
    upper_bounds: [{ key: 1, value: Buffer.from('ff00000000000000', 'hex') }],
    sort_order_id: null,
    referenced_data_file: null,
  },
});

describe('manifests', () => {
  it('avrocat reads every entry as written', async () => {
    const entries = [entry(1, 5), entry(2, 5)];
    const read = (await avrocat(manifestBytes(schema, 'data', entries))) as { status: number; snapshot_id: { long: number }; data_file: Record<string, unknown> }[];
    expect(read.map((r) => [r.status, r.snapshot_id, r.data_file.file_path, r.data_file.record_count, r.data_file.file_size_in_bytes])).toEqual([
      [1, { long: 5 }, 'file:///lake/main/t/f1.parquet', 101, 2 ** 40 + 1],
      [1, { long: 5 }, 'file:///lake/main/t/f2.parquet', 102, 2 ** 40 + 2],
    ]);
    expect(read[0]!.data_file.value_counts).toEqual({ array: [{ key: 1, value: 101 }] });
  });

  it('carry the v2 metadata, the field ids and the bounds bytes', async () => {
    const { meta, schema: written, records } = await readAvro(manifestBytes(schema, 'deletes', [entry(1, 5)]));
    expect(meta).toMatchObject({ 'schema-id': '2', 'partition-spec': '[]', 'partition-spec-id': '0', 'format-version': '2', content: 'deletes' });
    expect(JSON.parse(meta.schema!)).toEqual(schema);
    const fields = (written as { fields: { name: string; 'field-id': number; type: unknown }[] }).fields;
    expect(fields.map((f) => [f.name, f['field-id']])).toEqual([['status', 0], ['snapshot_id', 1], ['sequence_number', 3], ['file_sequence_number', 4], ['data_file', 2]]);
    const dataFile = (fields[4]!.type as { fields: { name: string; 'field-id': number; type: unknown }[] }).fields;
    expect(Object.fromEntries(dataFile.map((f) => [f.name, f['field-id']]))).toEqual({
      content: 134, file_path: 100, file_format: 101, partition: 102, record_count: 103, file_size_in_bytes: 104, column_sizes: 108, value_counts: 109,
      null_value_counts: 110, nan_value_counts: 137, lower_bounds: 125, upper_bounds: 128, sort_order_id: 140, referenced_data_file: 143,
    });
    const lower = dataFile.find((f) => f.name === 'lower_bounds')!.type as [string, { logicalType: string; items: { fields: { 'field-id': number }[] } }];
    expect(lower[1].logicalType).toBe('map');
    expect(lower[1].items.fields.map((f) => f['field-id'])).toEqual([126, 127]);
    const r = records[0] as { snapshot_id: bigint; data_file: { file_size_in_bytes: bigint; lower_bounds: { key: number; value: Buffer }[] } };
    expect(r.snapshot_id).toBe(5n);
    expect(r.data_file.file_size_in_bytes).toBe(2n ** 40n + 1n);
    expect(r.data_file.lower_bounds[0]!.value.toString('hex')).toBe('0100000000000000');
  });

  it('refuse a long past 2^53 instead of writing it wrong', () => {
    expect(() => manifestBytes(schema, 'data', [{ ...entry(1, 5), snapshot_id: 2 ** 53 + 2 }])).toThrow(/invalid/);
  });
});

describe('manifest lists', () => {
  it('avrocat reads every manifest as written, with the snapshot in the header', async () => {
    const m: ManifestFile = {
      manifest_path: 'file:///lake/iceberg/m1.avro', manifest_length: 4096, partition_spec_id: 0, content: 0, sequence_number: 7, min_sequence_number: 5,
      added_snapshot_id: 7, added_files_count: 2, existing_files_count: 1, deleted_files_count: 0, added_rows_count: 200, existing_rows_count: 100, deleted_rows_count: 0,
    };
    const bytes = manifestListBytes(7, 5, 7, [m, { ...m, manifest_path: 'file:///lake/iceberg/m2.avro', content: 1 }]);
    expect(await avrocat(bytes)).toEqual([m, { ...m, manifest_path: 'file:///lake/iceberg/m2.avro', content: 1 }]);
    const { meta, schema: written } = await readAvro(bytes);
    expect(meta).toMatchObject({ 'snapshot-id': '7', 'parent-snapshot-id': '5', 'sequence-number': '7', 'format-version': '2' });
    expect((written as { fields: { 'field-id': number }[] }).fields.map((f) => f['field-id'])).toEqual([500, 501, 502, 517, 515, 516, 503, 504, 505, 506, 512, 513, 514]);
  });
});
