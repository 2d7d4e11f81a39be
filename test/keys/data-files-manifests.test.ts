// The keys and values a table's data files are listed through (keys/data-files.ts, delete-files.ts): the
// ranges a listing scans, a commit's manifest written in parts of MANIFEST_PART_FILES files, read back, and
// rewritten by excision without the files it took.
import { describe, expect, it } from 'vitest';
import {
  addedDataFiles,
  decodeIdRange,
  idRangeKey,
  idRangesThrough,
  type DataFileRow,
  dataFileEnds,
  dataFileIdEnd,
  dataFileIdOf,
  dataFileKey,
  dataFilesOfTable,
  decodeFileTableKey,
  decodeManifest,
  decodeManifestPart,
  MANIFEST_PART_FILES,
  type ManifestFile,
  ManifestedFile,
  manifestFile,
  manifestParts,
  manifestsOfTable,
  trimmedManifest,
} from '../../keys/data-files.js';
import { columnIdOf } from '../../keys/columns.js';
import { deleteFileIdEnd, deleteFileIdOf, deleteFilesOfTable } from '../../keys/delete-files.js';
import { groupPrefix } from '../../keys/groups.js';
import { catalogId, type FileId, fileId, MAX_ID, snapshotId } from '../../keys/ids.js';
import { compareKeys, decodeKey, encodeKey, type Key, type KeyRange, keyToString } from '../../keys/key-codec.js';
import type { Mutation } from '../../keys/mutation.js';
import { Space } from '../../keys/spaces.js';
import type { Row } from '../../keys/versions.js';
import { decodeValue } from '../../keys/value-codec.js';

const startsWith = (key: Key, prefix: Key) => Buffer.from(key).subarray(0, prefix.length).equals(Buffer.from(prefix));
const inRange = (key: Key, r: KeyRange) => compareKeys(key, r.gte) >= 0 && (r.lt === undefined || compareKeys(key, r.lt) < 0) && (r.lte === undefined || compareKeys(key, r.lte) <= 0);
const file = (id: number): ManifestFile => [fileId(id), `data/${id}.parquet`, 'parquet', id, 100 * id, null, 10 * id, null];
const files = (from: number, n: number) => Array.from({ length: n }, (_, i) => file(from + i));
const ids = (fs: ManifestFile[]) => fs.map((f) => f[0]);
const headKey = (t: number, at: number) => encodeKey(Space.DataFileManifest, [t], at);
const partKey = (t: number, at: number, part: number) => encodeKey(Space.DataFileManifestPart, [t, at, part]);
const named = (m: Mutation) => `${m.type} ${keyToString(m.key)}`;
const put = (m: Mutation): [Key, Uint8Array] => {
  if (m.type !== 'put') throw new Error(`${named(m)} is no put`);
  return [m.key, m.value];
};

describe('the ranges of a table\'s file rows', () => {
  it('the data file group holds every row of its table and none of another', () => {
    const p = groupPrefix(dataFilesOfTable(catalogId(5)));
    expect(startsWith(dataFileKey(catalogId(5), fileId(0), 1), p)).toBe(true);
    expect(startsWith(dataFileKey(catalogId(5), fileId(MAX_ID), MAX_ID), p)).toBe(true);
    expect(startsWith(dataFileKey(catalogId(4), fileId(1), 1), p)).toBe(false);
    expect(startsWith(dataFileKey(catalogId(6), fileId(1), 1), p)).toBe(false);
  });

  it('the delete file group likewise', () => {
    const p = groupPrefix(deleteFilesOfTable(catalogId(5)));
    expect(startsWith(encodeKey(Space.DeleteFile, [5, 9], 2), p)).toBe(true);
    expect(startsWith(encodeKey(Space.DeleteFile, [6, 9], 2), p)).toBe(false);
    expect(startsWith(encodeKey(Space.DataFile, [5, 9], 2), p)).toBe(false);
  });

  it('a scan at a snapshot stops before the first id at or above its next_file_id, every begin of the ids below it read', () => {
    const end = dataFileIdEnd(catalogId(5), fileId(100));
    expect(compareKeys(dataFileKey(catalogId(5), fileId(99), MAX_ID), end)).toBeLessThan(0);
    expect(compareKeys(dataFileKey(catalogId(5), fileId(100), 0), end)).toBeGreaterThanOrEqual(0);
    const deletes = deleteFileIdEnd(catalogId(5), fileId(100));
    expect(compareKeys(encodeKey(Space.DeleteFile, [5, 99], MAX_ID), deletes)).toBeLessThan(0);
    expect(compareKeys(encodeKey(Space.DeleteFile, [5, 100], 0), deletes)).toBeGreaterThanOrEqual(0);
  });

  it('the manifests of a table are every commit\'s first part, of that table only', () => {
    const r = manifestsOfTable(catalogId(5));
    expect(inRange(headKey(5, 0), r)).toBe(true);
    expect(inRange(headKey(5, MAX_ID), r)).toBe(true);
    expect(inRange(headKey(4, MAX_ID), r)).toBe(false);
    expect(inRange(headKey(6, 0), r)).toBe(false);
  });

  it('the ends by file id run from `from` to the last file of the table', () => {
    const r = dataFileEnds(catalogId(5), fileId(40));
    const end = (t: number, id: number) => encodeKey(Space.DataFileEndIndex, [t, id]);
    expect(inRange(end(5, 40), r)).toBe(true);
    expect(inRange(end(5, MAX_ID), r)).toBe(true);
    expect(inRange(end(5, 39), r)).toBe(false);
    expect(inRange(end(6, 0), r)).toBe(false);
    expect(inRange(end(4, 50), r)).toBe(false);
  });
});

describe('the file id a key holds', () => {
  it('is the second field of a data or delete file row, as a group read gives the fields (and a column\'s id likewise)', () => {
    expect(dataFileIdOf(decodeKey(dataFileKey(catalogId(3), fileId(41), 9)).fields)).toBe(41);
    expect(deleteFileIdOf(decodeKey(encodeKey(Space.DeleteFile, [3, 42], 9)).fields)).toBe(42);
    expect(columnIdOf(decodeKey(encodeKey(Space.Column, [3, 7], 9)).fields)).toBe(7);
  });

  it('is the first field of a file→table entry', () => {
    expect(decodeFileTableKey(encodeKey(Space.FileTableIndex, [MAX_ID], 9))).toBe(MAX_ID);
    expect(decodeFileTableKey(encodeKey(Space.FileTableIndex, [43], 1))).toBe(43);
  });
});

describe('a manifest entry', () => {
  const row: Row<DataFileRow> = { path: 'data/a.parquet', format: 'parquet', recordCount: 3, fileSizeBytes: 30, footerSize: 12, rowIdStart: 100, contentCrc32: 0x1234 };

  it('holds the row\'s fields in their places, the CRC-32 as written', () => {
    expect(manifestFile(fileId(8), row)).toEqual([8, 'data/a.parquet', 'parquet', 3, 30, 12, 100, 0x1234]);
  });

  it('holds null for a row with no CRC-32, and the mapping id of a file read by name after it', () => {
    const { contentCrc32: _, ...noCrc } = row;
    expect(manifestFile(fileId(8), noCrc)).toEqual([8, 'data/a.parquet', 'parquet', 3, 30, 12, 100, null]);
    expect(manifestFile(fileId(8), { ...row, contentCrc32: null, mappingId: catalogId(77) })).toEqual([8, 'data/a.parquet', 'parquet', 3, 30, 12, 100, null, 77]);
  });

  it('reads back as the same row: format and mapping id included, and no mapping id for a file read by field id', () => {
    const mapped = new ManifestedFile(catalogId(1), snapshotId(2), manifestFile(fileId(8), { ...row, format: 'csv', mappingId: catalogId(77) }), null);
    expect({ ...mapped.row }).toStrictEqual({ ...row, format: 'csv', mappingId: 77, end: null });
    const plain = new ManifestedFile(catalogId(1), snapshotId(2), manifestFile(fileId(8), row), null);
    expect({ ...plain.row }).toStrictEqual({ ...row, end: null });
    expect('mappingId' in plain).toBe(false);
  });
});

describe('a commit\'s manifest', () => {
  const T = 5;
  const AT = 12;

  it('lists the files ascending by id, whatever order they were added in, and gives each run of consecutive ids to its table', () => {
    const out = addedDataFiles(catalogId(T), snapshotId(AT), [file(9), file(3), file(2), file(5), file(4), file(11)]);
    expect(out.map(named)).toEqual([`put ${keyToString(headKey(T, AT))}`, ...[2, 9, 11].map((id) => `put ${keyToString(idRangeKey(fileId(id)))}`)]);
    const [k, v] = put(out[0]!);
    expect(decodeValue(k, v)).toStrictEqual({ files: [2, 3, 4, 5, 9, 11].map(file) });
    expect(decodeManifest(k, v)).toStrictEqual({ files: [2, 3, 4, 5, 9, 11].map(file), more: false });
    expect(out.slice(1).map((m) => decodeIdRange(...put(m)))).toStrictEqual([
      { first: 2, lastId: 5, tableId: T, begin: AT },
      { first: 9, lastId: 9, tableId: T, begin: AT },
      { first: 11, lastId: 11, tableId: T, begin: AT },
    ]);
  });

  it('finds the run that may hold an id as the greatest at or below it', () => {
    const r = idRangesThrough(fileId(9));
    expect([2, 9].map((id) => inRange(idRangeKey(fileId(id)), { gte: r.gte, lte: r.lte }))).toEqual([true, true]);
    expect(inRange(idRangeKey(fileId(10)), { gte: r.gte, lte: r.lte })).toBe(false);
  });

  const manifest = (n: number) => {
    const out = addedDataFiles(catalogId(T), snapshotId(AT), files(1, n));
    const values = out.filter((m) => m.key[0] === Space.DataFileManifest || m.key[0] === Space.DataFileManifestPart).map(put);
    return { head: values[0]!, parts: values.slice(1) };
  };

  it(`holds up to ${MANIFEST_PART_FILES} files in one value that says no part follows`, () => {
    const { head, parts } = manifest(MANIFEST_PART_FILES);
    expect(parts).toEqual([]);
    expect(decodeValue(...head)).not.toHaveProperty('more');
    expect(decodeManifest(...head)).toStrictEqual({ files: files(1, MANIFEST_PART_FILES), more: false });
  });

  it(`puts the files past the first ${MANIFEST_PART_FILES} in parts numbered from 1, ${MANIFEST_PART_FILES} a part, under the commit`, () => {
    const { head, parts } = manifest(2 * MANIFEST_PART_FILES + 1);
    expect(decodeManifest(...head)).toStrictEqual({ files: files(1, MANIFEST_PART_FILES), more: true });
    expect(parts.map(([k]) => keyToString(k))).toEqual([partKey(T, AT, 1), partKey(T, AT, 2)].map(keyToString));
    expect(decodeManifestPart(...parts[0]!)).toStrictEqual(files(MANIFEST_PART_FILES + 1, MANIFEST_PART_FILES));
    expect(decodeManifestPart(...parts[1]!)).toStrictEqual([file(2 * MANIFEST_PART_FILES + 1)]);
    expect(manifest(2 * MANIFEST_PART_FILES).parts).toHaveLength(1);
  });

  it('finds its parts at manifestParts(key), and no other commit\'s', () => {
    const r = manifestParts(headKey(T, AT));
    expect(inRange(partKey(T, AT, 1), r)).toBe(true);
    expect(inRange(partKey(T, AT, MAX_ID), r)).toBe(true);
    expect(inRange(partKey(T, AT + 1, 1), r)).toBe(false);
    expect(inRange(partKey(T, AT - 1, MAX_ID), r)).toBe(false);
    expect(inRange(partKey(T + 1, AT, 1), r)).toBe(false);
  });

  describe('trimmed by excision', () => {
    const trimmed = (n: number, gone: number[]) => {
      const { head, parts } = manifest(n);
      return trimmedManifest(head, parts, new Set(gone), false);
    };
    /** The files the rewritten manifest lists, through its first part and its parts in order, and what it deletes. */
    const read = (out: Mutation[]) => {
      const deleted = out.filter((m) => m.type === 'del').map((m) => keyToString(m.key));
      const puts = out.filter((m) => m.type === 'put').map(put);
      const head = puts.find(([k]) => k[0] === Space.DataFileManifest);
      const parts = puts.filter(([k]) => k[0] === Space.DataFileManifestPart).sort(([a], [b]) => compareKeys(a, b));
      const first = head === undefined ? undefined : decodeManifest(...head);
      return {
        deleted,
        parts: parts.map(([k]) => decodeKey(k).fields[2]),
        more: first?.more,
        ids: first === undefined ? [] : ids([...first.files, ...parts.flatMap((p) => decodeManifestPart(...p))]),
        written: puts.map(([k]) => keyToString(k)),
      };
    };
    const range = (from: number, to: number, except: number[] = []) => Array.from({ length: to - from + 1 }, (_, i) => from + i).filter((i) => !except.includes(i)) as FileId[];

    it('rewrites a one-part manifest with the files left, in place', () => {
      const r = read(trimmed(5, [2, 4]));
      expect(r).toEqual({ deleted: [], parts: [], more: false, ids: [1, 3, 5], written: [keyToString(headKey(T, AT))] });
    });

    it('deletes a manifest none of whose files is left, its parts with it', () => {
      expect(trimmed(3, [1, 2, 3]).map(named)).toEqual([`del ${keyToString(headKey(T, AT))}`]);
      const n = MANIFEST_PART_FILES + 3;
      expect(trimmed(n, range(1, n)).map(named)).toEqual([`del ${keyToString(partKey(T, AT, 1))}`, `del ${keyToString(headKey(T, AT))}`]);
    });

    it('folds what is left into the first part when it fits, deleting the parts', () => {
      const n = MANIFEST_PART_FILES + 10;
      const r = read(trimmed(n, range(1, 20)));
      expect(r).toEqual({ deleted: [keyToString(partKey(T, AT, 1))], parts: [], more: false, ids: range(21, n), written: [keyToString(headKey(T, AT))] });
    });

    it('numbers new parts after the old ones, so that no key is both deleted and written', () => {
      const n = 2 * MANIFEST_PART_FILES + 76;
      const gone = [3, 600, 1099];
      const r = read(trimmed(n, gone));
      expect(r.deleted).toEqual([partKey(T, AT, 1), partKey(T, AT, 2)].map(keyToString));
      expect(r.parts).toEqual([3, 4]);
      expect(r.more).toBe(true);
      expect(r.ids).toEqual(range(1, n, gone));
      expect(r.written.filter((k) => r.deleted.includes(k))).toEqual([]);
    });

    it('reads the files of every part it is given, not only the first', () => {
      const n = MANIFEST_PART_FILES + 2;
      expect(read(trimmed(n, [1])).ids).toEqual(range(2, n));
    });

    it('rewrites the commit\'s id ranges as the runs of the files left, when it has them; a key put again is not deleted', () => {
      const { head, parts } = manifest(10);
      const out = trimmedManifest(head, parts, new Set([4, 5, 10]), true);
      const ranges = out.filter((m) => m.key[0] === Space.FileIdRange);
      expect(ranges.filter((m) => m.type === 'del')).toEqual([]);
      expect(ranges.map((m) => decodeIdRange(...put(m)))).toStrictEqual([
        { first: 1, lastId: 3, tableId: T, begin: AT },
        { first: 6, lastId: 9, tableId: T, begin: AT },
      ]);
      // The first file gone: its run's key goes, and one starts where the files left do.
      const cut = trimmedManifest(head, parts, new Set([1]), true).filter((m) => m.key[0] === Space.FileIdRange);
      expect(cut.map(named)).toEqual([`del ${keyToString(idRangeKey(fileId(1)))}`, `put ${keyToString(idRangeKey(fileId(2)))}`]);
      // None left: none put.
      expect(trimmedManifest(head, parts, new Set(range(1, 10)), true).filter((m) => m.key[0] === Space.FileIdRange).map(named)).toEqual([`del ${keyToString(idRangeKey(fileId(1)))}`]);
      // A commit from before decision 0068: its files have entries of their own, and no range is written.
      expect(trimmedManifest(head, parts, new Set([4]), false).filter((m) => m.key[0] === Space.FileIdRange)).toEqual([]);
    });
  });
});
