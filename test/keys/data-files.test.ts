// A file a listing reads from its manifest is one object, its row and its version at once (keys/data-files.ts
// ManifestedFile). What leaves it as a row — the value written when the file is ended, a copy, a JSON — must
// be the row and nothing of the version beside it.
import { describe, expect, it } from 'vitest';
import { dataFileEntity, dataFileKey, type ManifestFile, ManifestedFile } from '../../keys/data-files.js';
import { catalogId, fileId, snapshotId } from '../../keys/ids.js';
import { decodeValue } from '../../keys/value-codec.js';

const entry: ManifestFile = [fileId(41), 'data/a.parquet', 'parquet', 10, 1000, 120, 7, 0xdeadbeef];
const row = { path: 'data/a.parquet', format: 'parquet', recordCount: 10, fileSizeBytes: 1000, footerSize: 120, rowIdStart: 7, contentCrc32: 0xdeadbeef, end: null };

describe('a data file read from its manifest', () => {
  const v = new ManifestedFile(catalogId(3), snapshotId(9), entry, null);

  it('is its version: id, begin, key and fields as the data file row has them', () => {
    expect(v.id).toBe(41);
    expect(v.begin).toBe(9);
    expect(Buffer.from(v.key)).toEqual(Buffer.from(dataFileKey(catalogId(3), fileId(41), 9)));
    expect(v.fields).toEqual([3, 41]);
  });

  it('is its row and nothing else when copied, shown as JSON or listed by key', () => {
    expect({ ...v.row }).toStrictEqual(row);
    expect(JSON.parse(JSON.stringify(v.row))).toStrictEqual(row);
    expect(Object.keys(v.row).sort()).toEqual(Object.keys(row).sort());
  });

  it('writes exactly the row with its end when the file is ended', () => {
    const put = dataFileEntity(catalogId(3), fileId(41)).end(v, snapshotId(12))[0]!;
    expect(put.type).toBe('put');
    if (put.type !== 'put') return;
    expect(Buffer.from(put.key)).toEqual(Buffer.from(v.key));
    expect(decodeValue(put.key, put.value)).toStrictEqual({ ...row, end: 12 });
  });

  it('reads a manifest entry written before the CRC was recorded as having none', () => {
    const old = new ManifestedFile(catalogId(3), snapshotId(9), entry.slice(0, 7) as ManifestFile, snapshotId(11));
    expect({ ...old.row }).toStrictEqual({ ...row, contentCrc32: null, end: 11 });
  });
});
