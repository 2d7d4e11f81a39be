// A table's stats row (keys/stats.ts): what a create, a commit and a drop make of it, and what verify's
// table-stats-add-up rule says of one that disagrees with the table's data file rows.
import { describe, expect, it } from 'vitest';
import { catalogId } from '../../keys/ids.js';
import { encodeKey, keyPrefix } from '../../keys/key-codec.js';
import { Space } from '../../keys/spaces.js';
import { changedTableStats, droppedTableStats, EMPTY_TABLE_STATS, NO_DELETES, recreatedTableStats, type TableStatsRow, tableStatsProblems, tableVersionsPrefix } from '../../keys/stats.js';

const startsWith = (key: Uint8Array, prefix: Uint8Array) => Buffer.from(key).subarray(0, prefix.length).equals(Buffer.from(prefix));

describe('the stats a table starts from', () => {
  it('a new table: nothing', () => {
    expect(recreatedTableStats(undefined)).toStrictEqual({ recordCount: 0, nextRowId: 0, fileSizeBytes: 0, dataFiles: 0, endedFiles: 0, deletes: NO_DELETES });
  });

  it('a table restored under its id: no live file, but its row ids still taken and its ended files still counted', () => {
    const kept: TableStatsRow = { recordCount: 50, nextRowId: 120, fileSizeBytes: 4096, dataFiles: 3, endedFiles: 4 };
    expect(recreatedTableStats(kept)).toStrictEqual({ recordCount: 0, nextRowId: 120, fileSizeBytes: 0, dataFiles: 0, endedFiles: 4, deletes: NO_DELETES });
  });

  it('a restored table whose older stats kept no count of ended files keeps none, so listings read its ends', () => {
    const kept: TableStatsRow = { recordCount: 50, nextRowId: 120, fileSizeBytes: 4096 };
    expect(recreatedTableStats(kept)).toStrictEqual({ recordCount: 0, nextRowId: 120, fileSizeBytes: 0, dataFiles: 0, deletes: NO_DELETES });
  });
});

describe('the stats after a commit', () => {
  it('adds what the commit did to the live files, counts the files it ended, and never lowers the next row id', () => {
    const base: TableStatsRow = { recordCount: 10, nextRowId: 40, fileSizeBytes: 100, dataFiles: 2, endedFiles: 1 };
    // What a listing reads grows by each file added (a net 1 and the 2 ended: 3 manifest entries) and each
    // ended (2 ends), from 2 + 2 * 1 without a base (every manifest entry and every end).
    expect(changedTableStats(base, { records: -4, bytes: 30, files: 1, ended: 2, deletes: NO_DELETES }, 55)).toStrictEqual({ recordCount: 6, nextRowId: 55, fileSizeBytes: 130, dataFiles: 3, endedFiles: 3, listed: 9 });
    expect(changedTableStats({ ...base, listed: 2 }, { records: 0, bytes: 0, files: 1, ended: 2, deletes: NO_DELETES }, 55).listed).toBe(7);
    expect(changedTableStats(base, { records: 0, bytes: 0, files: 0, ended: 0, deletes: NO_DELETES }, 12).nextRowId).toBe(40);
  });

  it('adds what the commit did to the live delete files, and keeps none for a row from before they were counted', () => {
    const base: TableStatsRow = { recordCount: 10, nextRowId: 40, fileSizeBytes: 100, dataFiles: 2, endedFiles: 1, deletes: { files: 2, bytes: 70, rows: 5 } };
    const replaced = { records: 0, bytes: 0, files: 0, ended: 0, deletes: { files: 0, bytes: 12, rows: 3 } };
    expect(changedTableStats(base, replaced, 40).deletes).toStrictEqual({ files: 2, bytes: 82, rows: 8 });
    expect(changedTableStats(base, { ...replaced, deletes: { files: -1, bytes: -30, rows: -2 } }, 40).deletes).toStrictEqual({ files: 1, bytes: 40, rows: 3 });
    const { deletes: _, ...old } = base;
    expect(changedTableStats(old, replaced, 40)).not.toHaveProperty('deletes');
  });

  it('keeps no count a row from before the counts were kept lacks: a guess would let a listing skip files', () => {
    const old: TableStatsRow = { recordCount: 10, nextRowId: 40, fileSizeBytes: 100 };
    expect(changedTableStats(old, { records: 5, bytes: 7, files: 1, ended: 1, deletes: NO_DELETES }, 45)).toStrictEqual({ recordCount: 15, nextRowId: 45, fileSizeBytes: 107 });
    const noEnded: TableStatsRow = { ...old, dataFiles: 4 };
    expect(changedTableStats(noEnded, { records: 5, bytes: 7, files: 1, ended: 1, deletes: NO_DELETES }, 45)).toStrictEqual({ recordCount: 15, nextRowId: 45, fileSizeBytes: 107, dataFiles: 5 });
    const noLive: TableStatsRow = { ...old, endedFiles: 4 };
    expect(changedTableStats(noLive, { records: 5, bytes: 7, files: 1, ended: 1, deletes: NO_DELETES }, 45)).toStrictEqual({ recordCount: 15, nextRowId: 45, fileSizeBytes: 107, endedFiles: 5 });
  });
});

describe('the stats a dropped table keeps', () => {
  const base: TableStatsRow = { recordCount: 10, nextRowId: 40, fileSizeBytes: 100, dataFiles: 2, endedFiles: 1 };

  it('are the ones it had, with the files its drop ended counted as ended', () => {
    expect(droppedTableStats(base, { records: -10, bytes: -100, files: -2, ended: 2, deletes: NO_DELETES })).toStrictEqual({ ...base, endedFiles: 3 });
  });

  it('are the very row it had when the drop ended no file, so the commit writes none (src/txn/plan.ts compares them)', () => {
    expect(droppedTableStats(base, { records: 0, bytes: 0, files: 0, ended: 0, deletes: NO_DELETES })).toBe(base);
  });

  it('are the very row it had when it kept no count of ended files', () => {
    const old: TableStatsRow = { recordCount: 10, nextRowId: 40, fileSizeBytes: 100 };
    expect(droppedTableStats(old, { records: -10, bytes: -100, files: -2, ended: 2, deletes: NO_DELETES })).toBe(old);
  });
});

describe('tableVersionsPrefix', () => {
  it('is a prefix of every version key of that table and of no other table', () => {
    const p = tableVersionsPrefix(catalogId(7));
    expect(startsWith(encodeKey(Space.Table, [7], 1), p)).toBe(true);
    expect(startsWith(encodeKey(Space.Table, [7], 900), p)).toBe(true);
    expect(startsWith(encodeKey(Space.Table, [8], 1), p)).toBe(false);
    expect(startsWith(encodeKey(Space.Table, [6], 1), p)).toBe(false);
    expect(Buffer.from(p).equals(Buffer.from(keyPrefix(Space.Table)))).toBe(false);
  });
});

describe('table-stats-add-up', () => {
  const key = 'TableStats/7';
  const file = (end: number | null, recordCount: number, fileSizeBytes: number, rowIdEnd: number, tableId = 7) => ({ tableId, end, recordCount, fileSizeBytes, rowIdEnd });
  const files = [file(null, 10, 100, 10), file(null, 5, 50, 30), file(3, 8, 80, 18), file(null, 99, 999, 500, 8)];
  const good: TableStatsRow = { recordCount: 15, nextRowId: 30, fileSizeBytes: 150, dataFiles: 2, endedFiles: 1 };
  const deleteFile = (end: number | null, deleteCount: number, fileSizeBytes: number, tableId = 7) => ({ tableId, end, deleteCount, fileSizeBytes });
  const deleteFiles = [deleteFile(null, 2, 20), deleteFile(null, 1, 30), deleteFile(4, 1, 25), deleteFile(null, 9, 90, 8)];
  const problems = (row: TableStatsRow, live = new Set([7])) => tableStatsProblems([{ tableId: 7, row, key }], files, deleteFiles, live);

  it('finds nothing in stats that add up the live files, other tables\' files apart', () => {
    expect(problems(good)).toEqual([]);
    expect(problems({ ...good, nextRowId: 31 })).toEqual([]);
    expect(problems({ ...good, endedFiles: 5 })).toEqual([]); // excision may have removed ended files since
  });

  it('finds nothing in a table with no file at all whose stats are empty', () => {
    expect(tableStatsProblems([{ tableId: 9, row: EMPTY_TABLE_STATS, key }], files, deleteFiles, new Set([9]))).toEqual([]);
  });

  const mismatch = (says: string) => [{ invariant: 'table-stats-add-up', key, message: `table 7's stats say ${says}; its live files are 2 with 15 in 150` }];

  it('reports records, bytes or a file count that differ from the live files', () => {
    expect(problems({ ...good, recordCount: 16 })).toEqual(mismatch('2 files with 16 records in 150 bytes'));
    expect(problems({ ...good, fileSizeBytes: 149 })).toEqual(mismatch('2 files with 15 records in 149 bytes'));
    expect(problems({ ...good, dataFiles: 3 })).toEqual(mismatch('3 files with 15 records in 150 bytes'));
    expect(problems({ ...good, dataFiles: 0 })).toEqual(mismatch('0 files with 15 records in 150 bytes'));
  });

  it('does not hold a row from before the file count was kept to one, but still to its records', () => {
    const { dataFiles: _, ...old } = good;
    expect(problems(old)).toEqual([]);
    expect(problems({ ...old, recordCount: 1 })).toEqual(mismatch('some files with 1 records in 150 bytes'));
  });

  it('holds the live delete files to the count a row keeps of them, ended ones and other tables\' apart', () => {
    expect(problems({ ...good, deletes: { files: 2, bytes: 50, rows: 3 } })).toEqual([]);
    const says = (d: string) => [{ invariant: 'table-stats-add-up', key, message: `table 7's stats say ${d}; its live delete files are 2 deleting 3 in 50` }];
    expect(problems({ ...good, deletes: { files: 3, bytes: 50, rows: 3 } })).toEqual(says('3 delete files deleting 3 rows in 50 bytes'));
    expect(problems({ ...good, deletes: { files: 2, bytes: 75, rows: 3 } })).toEqual(says('2 delete files deleting 3 rows in 75 bytes'));
    expect(problems({ ...good, deletes: { files: 2, bytes: 50, rows: 4 } })).toEqual(says('2 delete files deleting 4 rows in 50 bytes'));
    expect(tableStatsProblems([{ tableId: 9, row: EMPTY_TABLE_STATS, key }], files, deleteFiles, new Set([9]))).toEqual([]);
    expect(problems({ ...good, deletes: NO_DELETES })).toHaveLength(1);
  });

  it('reports a next row id a live file already took', () => {
    expect(problems({ ...good, nextRowId: 29 })).toEqual([{ invariant: 'table-stats-add-up', key, message: "table 7's next row id is 29, but its files took row ids up to 29" }]);
  });

  it('counts the row ids of ended files as taken too, whatever order the files come in', () => {
    const ended = [file(2, 4, 4, 60), file(null, 15, 150, 15), file(1, 1, 1, 20)];
    const row: TableStatsRow = { recordCount: 15, nextRowId: 59, fileSizeBytes: 150, dataFiles: 1, endedFiles: 2 };
    expect(tableStatsProblems([{ tableId: 7, row, key }], ended, [], new Set([7]))).toEqual([{ invariant: 'table-stats-add-up', key, message: "table 7's next row id is 59, but its files took row ids up to 59" }]);
    expect(tableStatsProblems([{ tableId: 7, row: { ...row, nextRowId: 60 }, key }], ended, [], new Set([7]))).toEqual([]);
  });

  it('reports fewer ended files counted than have an end: a listing would skip their ends', () => {
    expect(problems({ ...good, endedFiles: 0 })).toEqual([
      { invariant: 'table-stats-add-up', key, message: "table 7's stats say 0 of its data files were ever ended, but 1 have an end: listings would skip their ends" },
    ]);
  });

  it('holds a dropped table only to its count of ended files: it keeps the stats it had', () => {
    const dropped = new Set<number>();
    expect(problems({ ...good, recordCount: 1, dataFiles: 9, nextRowId: 0 }, dropped)).toEqual([]);
    expect(problems({ ...good, endedFiles: 0 }, dropped)).toHaveLength(1);
  });
});
