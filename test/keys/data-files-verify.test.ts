// What verify says of a table's data file indexes that disagree with its data file rows (keys/data-files.ts):
// the manifests a listing reads instead of the rows, the file→table index a delete file is checked against,
// the ends by file id a listing merges with the manifests, and the path index reclamation deletes objects by.
// Each rule is handed what census read, as census hands it; every message is checked word for word, since it
// is what an operator reads of a damaged index.
import { describe, expect, it } from 'vitest';
import { type DataFileFact, type DataFileRow, dataFileEndProblems, fileTableProblems, MANIFEST_PART_FILES, type ManifestFile, type ManifestValue, manifestProblems, pathIndexProblems } from '../../keys/data-files.js';
import { fileId } from '../../keys/ids.js';

const file = (id: number): ManifestFile => [fileId(id), `data/${id}.parquet`, 'parquet', id, 100 * id, null, 10 * id, null];
const fact = (tableId: number, id: number, begin: number, end: number | null = null): DataFileFact => ({
  tableId,
  id,
  begin,
  end,
  row: { path: `data/${id}.parquet`, format: 'parquet', recordCount: id, fileSizeBytes: 100 * id, footerSize: null, rowIdStart: 10 * id, contentCrc32: null, end: end as DataFileRow['end'] },
  key: `DataFile/${tableId}/${id}@${begin}`,
});
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const head = (tableId: number, begin: number, ids: number[], more = false): ManifestValue => ({ tableId, begin, files: ids.map(file), more, key: `DataFileManifest/${tableId}@${begin}` });
const part = (tableId: number, begin: number, n: number, ids: number[]): ManifestValue => ({ tableId, begin, files: ids.map(file), part: true, key: `DataFileManifestPart/${tableId}/${begin}/${n}` });
const MANIFEST = 'manifests-list-their-files';

describe('manifests-list-their-files', () => {
  it('finds nothing when each commit\'s manifest lists exactly the files it added, whatever order the rows come in', () => {
    const facts = [fact(5, 3, 12), fact(5, 1, 12), fact(5, 2, 12), fact(5, 4, 13), fact(6, 1, 12)];
    expect(manifestProblems(facts, [head(5, 12, [1, 2, 3]), head(5, 13, [4]), head(6, 12, [1])])).toEqual([]);
  });

  it('reads a manifest through its parts', () => {
    const n = 2 * MANIFEST_PART_FILES + 2;
    const values = [head(5, 12, range(1, MANIFEST_PART_FILES), true), part(5, 12, 1, range(MANIFEST_PART_FILES + 1, 2 * MANIFEST_PART_FILES)), part(5, 12, 2, [n - 1, n])];
    expect(manifestProblems(range(1, n).map((id) => fact(5, id, 12)), values)).toEqual([]);
    expect(values[0]!.files).toHaveLength(MANIFEST_PART_FILES); // and leaves what it was handed as it was
  });

  it('reports a manifest that lists other files than the rows, or other fields of one, counting its files and parts', () => {
    const facts = [fact(5, 1, 12), fact(5, 2, 12), fact(5, 3, 12)];
    const wrong = (message: string) => [{ invariant: MANIFEST, key: 'DataFileManifest/5@12', message }];
    expect(manifestProblems(facts, [head(5, 12, [1, 2])])).toEqual(wrong('the manifest of table 5 at snapshot 12 lists 2 files in 1 parts; the rows give 3 that differ from them'));
    const changed = { ...head(5, 12, [1, 2, 3]), files: [file(1), file(2), [...file(3).slice(0, 3), 4, ...file(3).slice(4)] as ManifestFile] };
    expect(manifestProblems(facts, [changed])).toEqual(wrong('the manifest of table 5 at snapshot 12 lists 3 files in 1 parts; the rows give 3 that differ from them'));
    const many = range(1, MANIFEST_PART_FILES + 5);
    expect(manifestProblems(many.slice(1).map((id) => fact(5, id, 12)), [head(5, 12, many.slice(0, MANIFEST_PART_FILES), true), part(5, 12, 1, many.slice(MANIFEST_PART_FILES))])).toEqual(
      wrong(`the manifest of table 5 at snapshot 12 lists ${MANIFEST_PART_FILES + 5} files in 2 parts; the rows give ${MANIFEST_PART_FILES + 4} that differ from them`),
    );
  });

  it('reports a first part that says parts follow when none does', () => {
    expect(manifestProblems([fact(5, 1, 12)], [head(5, 12, [1], true)])).toEqual([
      { invariant: MANIFEST, key: 'DataFileManifest/5@12', message: 'the manifest of table 5 at snapshot 12 lists 1 files in 1 parts; the rows give 1 that differ from them' },
    ]);
  });

  it('reports a part whose first part says none follow, or is missing', () => {
    expect(manifestProblems([fact(5, 1, 12)], [head(5, 12, [1]), part(5, 12, 1, [2])])).toEqual([
      { invariant: MANIFEST, key: 'DataFileManifestPart/5/12/1', message: 'a part of the manifest of table 5 at snapshot 12, whose first part says none follow' },
    ]);
    expect(manifestProblems([], [part(5, 14, 1, [2])])).toEqual([
      { invariant: MANIFEST, key: 'DataFileManifestPart/5/14/1', message: 'a part of the manifest of table 5 at snapshot 14, whose first part is missing' },
    ]);
  });

  it('reports a manifest of a commit that added no file to the table', () => {
    expect(manifestProblems([], [head(5, 20, [7])])).toEqual([
      { invariant: MANIFEST, key: 'DataFileManifest/5@20', message: 'the manifest of table 5 at snapshot 20 lists 1 files in 1 parts; the rows give 0 that differ from them' },
    ]);
  });

  it('reports the files of a commit no manifest lists: a listing would not see them', () => {
    expect(manifestProblems([fact(5, 1, 12), fact(5, 7, 30), fact(5, 8, 30)], [head(5, 12, [1])])).toEqual([{ invariant: MANIFEST, message: 'no manifest lists the 2 data files table 5 added at snapshot 30' }]);
  });
});

describe('file-table-index-names-each-file', () => {
  const entry = (id: number, begin: number, tableId: number) => ({ id, begin, tableId, key: `FileTableIndex/${id}@${begin}` });
  const range = (first: number, lastId: number, tableId: number, begin: number) => ({ first, lastId, tableId, begin, key: `FileIdRange/${first}` });
  const INV = 'file-table-index-names-each-file';

  it('finds nothing when each row\'s id resolves to its table: by its own entry from before decision 0068, or by its commit\'s run', () => {
    expect(fileTableProblems([fact(5, 1, 12), fact(6, 2, 12)], [entry(2, 12, 6), entry(1, 12, 5)], [])).toEqual([]);
    expect(fileTableProblems([fact(5, 1, 12), fact(5, 2, 12), fact(6, 3, 12), fact(5, 7, 14)], [], [range(1, 2, 5, 12), range(3, 3, 6, 12), range(7, 7, 5, 14)])).toEqual([]);
    expect(fileTableProblems([fact(5, 1, 12), fact(5, 7, 14)], [entry(1, 12, 5)], [range(7, 7, 5, 14)])).toEqual([]);
  });

  it('reports a file the index gives to another table, or to none', () => {
    expect(fileTableProblems([fact(5, 1, 12), fact(5, 2, 12)], [entry(1, 12, 6)], [])).toEqual([
      { invariant: INV, key: 'DataFile/5/1@12', message: 'data file 1 is in table 5, added at snapshot 12; the file→table index says table 6' },
      { invariant: INV, key: 'DataFile/5/2@12', message: 'data file 2 is in table 5, added at snapshot 12; the file→table index says nothing' },
    ]);
    expect(fileTableProblems([fact(5, 1, 12), fact(5, 2, 13)], [], [range(1, 2, 5, 12)])).toEqual([
      { invariant: INV, key: 'DataFile/5/2@13', message: 'data file 2 is in table 5, added at snapshot 13; the file→table index says table 5, added at snapshot 12' },
      { invariant: INV, key: 'FileIdRange/1', message: 'the file→table index gives ids 1 to 2 to table 5 at snapshot 12; 1 of them are no data file it added there' },
    ]);
    expect(fileTableProblems([fact(5, 1, 12)], [entry(1, 12, 5)], [range(1, 1, 5, 12)])).toEqual([
      { invariant: INV, key: 'DataFile/5/1@12', message: 'data file 1 is in table 5, added at snapshot 12; the file→table index says both an entry and a range' },
      { invariant: INV, key: 'FileIdRange/1', message: 'the file→table index gives ids 1 to 1 to table 5 at snapshot 12; 1 of them are no data file it added there' },
    ]);
  });

  it('reports a run over ids that are no file of its commit (a delete file\'s id between two data files), and runs that overlap or are empty', () => {
    expect(fileTableProblems([fact(5, 1, 12), fact(5, 3, 12)], [], [range(1, 3, 5, 12)])).toEqual([
      { invariant: INV, key: 'FileIdRange/1', message: 'the file→table index gives ids 1 to 3 to table 5 at snapshot 12; 1 of them are no data file it added there' },
    ]);
    expect(fileTableProblems([fact(5, 1, 12)], [], [range(1, 4, 5, 12), range(3, 3, 6, 12), range(9, 8, 5, 12)])).toEqual([
      { invariant: INV, key: 'FileIdRange/1', message: 'the file→table index gives ids 1 to 4 to table 5, and ids from 3 on to table 6 too' },
      { invariant: INV, key: 'FileIdRange/9', message: 'the file→table index gives ids 9 to 8 to table 5, an empty run' },
      { invariant: INV, key: 'DataFile/5/1@12', message: 'data file 1 is in table 5, added at snapshot 12; the file→table index says nothing' },
      { invariant: INV, key: 'FileIdRange/3', message: 'the file→table index gives ids 3 to 3 to table 6 at snapshot 12; 1 of them are no data file it added there' },
    ]);
  });

  it('checks, in a slice of a census, the ids of its slice in every run', () => {
    const all = [fact(5, 1, 12), fact(5, 3, 12)];
    const slices = [0, 1].map((slice) => fileTableProblems(all.filter((f) => f.id % 2 === slice), [], [range(1, 3, 5, 12)], { slice, of: 2 }));
    expect(slices).toEqual([[{ invariant: INV, key: 'FileIdRange/1', message: 'the file→table index gives ids 1 to 3 to table 5 at snapshot 12; 1 of them are no data file it added there' }], []]);
  });

  it('reports an entry no row has, one under another begin included', () => {
    expect(fileTableProblems([fact(5, 1, 12)], [entry(1, 12, 5), entry(9, 3, 5), entry(1, 13, 5)], [])).toEqual([
      { invariant: INV, key: 'FileTableIndex/9@3', message: 'the file→table index names data file 9, which has no row' },
      { invariant: INV, key: 'FileTableIndex/1@13', message: 'the file→table index names data file 1, which has no row' },
    ]);
  });
});

describe('file-end-index-equals-the-rows', () => {
  const end = (tableId: number, id: number, at: number) => ({ tableId, id, end: at, key: `DataFileEndIndex/${tableId}/${id}` });
  const INV = 'file-end-index-equals-the-rows';

  it('finds nothing when each ended file has its end there and no live file has one', () => {
    expect(dataFileEndProblems([fact(5, 1, 12), fact(5, 2, 12, 20), fact(6, 2, 12, 21)], [end(5, 2, 20), end(6, 2, 21)])).toEqual([]);
  });

  it('reports an ended file whose entry is missing or says another end, and a live file with an end entry', () => {
    expect(dataFileEndProblems([fact(5, 1, 12, 20), fact(5, 2, 12, 20), fact(5, 3, 12)], [end(5, 2, 19), end(5, 3, 25)])).toEqual([
      { invariant: INV, key: 'DataFile/5/1@12', message: 'data file 1 ends at 20; its end entry says nothing' },
      { invariant: INV, key: 'DataFile/5/2@12', message: 'data file 2 ends at 20; its end entry says 19' },
      { invariant: INV, key: 'DataFile/5/3@12', message: 'data file 3 ends at nothing; its end entry says 25' },
    ]);
  });

  it('reports an entry no row has: the same id in another table is another file', () => {
    expect(dataFileEndProblems([fact(5, 2, 12, 20)], [end(5, 2, 20), end(6, 2, 20)])).toEqual([{ invariant: INV, key: 'DataFileEndIndex/6/2', message: 'an end entry for data file 2 of table 6, which has no row' }]);
  });
});

describe('path-index-names-every-row', () => {
  const row = (id: number, path: string) => ({ id, path, key: `row ${id}` });
  const entry = (path: string, ids: number[]) => ({ path, ids, key: `FilePathIndex/${path}` });
  const ref = (path: string, id: number) => ({ path, id, key: `FilePathRef/${path}/${id}` });
  const INV = 'path-index-names-every-row';

  it('finds nothing when each row naming a path has its reference, or its id in the path\'s value from before decision 0067', () => {
    expect(pathIndexProblems([row(10, 'a'), row(5, 'a'), row(7, 'a'), row(3, 'b')], [], [ref('a', 5), ref('a', 7), ref('a', 10), ref('b', 3)])).toEqual([]);
    expect(pathIndexProblems([row(10, 'a'), row(5, 'a'), row(7, 'a'), row(3, 'b')], [entry('a', [7, 10, 5]), entry('b', [3])], [])).toEqual([]);
    // A path named before the change and again after it (a restore registers the same path under a new id).
    expect(pathIndexProblems([row(10, 'a'), row(5, 'a'), row(7, 'a')], [entry('a', [7, 5])], [ref('a', 10)])).toEqual([]);
  });

  it('reports a reference no row of its file backs, and a value that misses a row or names one that does not', () => {
    expect(pathIndexProblems([row(5, 'a')], [], [ref('a', 5), ref('a', 6), ref('c', 5)])).toEqual([
      { invariant: INV, key: 'FilePathRef/a/6', message: 'the path index says file 6 names "a"; no row of file 6 does' },
      { invariant: INV, key: 'FilePathRef/c/5', message: 'the path index says file 5 names "c"; no row of file 5 does' },
    ]);
    expect(pathIndexProblems([row(10, 'a'), row(5, 'a'), row(7, 'a')], [entry('a', [7, 5])], [])).toEqual([
      { invariant: INV, key: 'FilePathIndex/a', message: 'the path index gives files [7,5] for "a"; the rows naming it without a reference of their own are [5,7,10]' },
    ]);
    expect(pathIndexProblems([row(5, 'a')], [entry('a', [5, 6]), entry('c', [4])], [])).toEqual([
      { invariant: INV, key: 'FilePathIndex/a', message: 'the path index gives files [5,6] for "a"; the rows naming it without a reference of their own are [5]' },
      { invariant: INV, key: 'FilePathIndex/c', message: 'the path index gives files [4] for "c"; the rows naming it without a reference of their own are []' },
    ]);
  });

  it('reports a file named both ways: excision would take one and leave the other naming a gone row', () => {
    expect(pathIndexProblems([row(5, 'a')], [entry('a', [5])], [ref('a', 5)])).toEqual([
      { invariant: INV, key: 'FilePathIndex/a', message: 'the path index gives files [5] for "a"; the rows naming it without a reference of their own are []' },
    ]);
  });

  it('reports a row the index does not name: reclamation could delete a live object', () => {
    expect(pathIndexProblems([row(3, 'b'), row(2, 'b')], [], [])).toEqual([{ invariant: INV, message: '"b" is named by file rows [2,3] but not in the path index' }]);
    expect(pathIndexProblems([row(3, 'b'), row(2, 'b')], [], [ref('b', 2)])).toEqual([{ invariant: INV, message: '"b" is named by file rows [3] but not in the path index' }]);
  });
});
