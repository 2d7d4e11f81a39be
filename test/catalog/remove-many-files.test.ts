// A transaction that removes many files of one table (a compaction, an overwrite) reads the table's listing
// once, from its eighth file on, instead of two LevelDB iterators a file (1,000 removes took 0.2–1.0 s of
// calls alone); the answers stay those of a file looked up alone, refusals included.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Key } from '../../keys/key-codec.js';
import { Space } from '../../keys/spaces.js';
import { IndexView, type Range } from '../../src/kv/read-view.js';
import { openCatalog } from '../helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const files = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ path: `${prefix}${i}.parquet`, recordCount: 1, fileSizeBytes: 1 }));

describe('removing many files of a table', () => {
  it('reads the listing once, and refuses what a lookup alone refuses', async () => {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      await tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]);
      await tx.createTable('main', 'u', [{ name: 'x', type: 'int64' }]);
    });
    let ids: number[] = [];
    let other: number[] = [];
    await c.transaction(async (tx) => {
      ids = await tx.addDataFiles('main', 't', files('t', 200));
      other = await tx.addDataFiles('main', 'u', files('u', 3));
    });
    await c.transaction((tx) => tx.removeDataFile('main', 't', ids[199]!));
    const gone = ids.pop()!;

    // Reads of single files' rows (their ids' tables, their versions), counted while the removals run.
    let single = 0;
    const scan = IndexView.prototype.scanBatches;
    vi.spyOn(IndexView.prototype, 'scanBatches').mockImplementation(function (this: IndexView, range: Range) {
      const space = range.gte?.[0];
      if (space === Space.FileTableIndex || (space === Space.DataFile && range.gte!.length > 9)) single++;
      return scan.call(this, range);
    });
    // An id's table is found by its commit's run: one step back from the id (decision 0068).
    const last = IndexView.prototype.last;
    vi.spyOn(IndexView.prototype, 'last').mockImplementation(function (this: IndexView, gte: Key, lte: Key) {
      if (gte[0] === Space.FileIdRange) single++;
      return last.call(this, gte, lte);
    });
    const refused: string[] = [];
    const refuse = async (p: Promise<unknown>) => refused.push(await p.then(() => 'done', (e: { code: string; message: string }) => `${e.code}: ${e.message}`));
    const { snapshot } = await c.transaction(async (tx) => {
      for (const id of ids.slice(0, 150)) await tx.removeDataFile('main', 't', id);
      await refuse(tx.removeDataFile('main', 't', ids[0]!));
      await refuse(tx.removeDataFile('main', 't', gone));
      await refuse(tx.removeDataFile('main', 't', other[0]!));
      await refuse(tx.removeDataFile('main', 't', 999_999));
    });
    // Seven files alone, then one listing; each refusal reads its file alone, as before.
    expect(single).toBeLessThan(7 * 2 + 4 * 2 + 1);
    expect(refused).toEqual([
      `NOT_FOUND: data file ${ids[0]} of "main"."t" is already removed by this transaction`,
      expect.stringMatching(new RegExp(`^NOT_FOUND: data file ${gone} of "main"."t" was removed at snapshot \\d+$`)),
      expect.stringMatching(new RegExp(`^INVALID_ARGUMENT: data file ${other[0]} belongs to table "u", not to "main"."t"`)),
      'NOT_FOUND: data file 999999 does not exist',
    ]);
    const r = await c.reader({ snapshot: snapshot! });
    expect((await r.dataFiles('main', 't')).map((f) => f.id)).toEqual(ids.slice(150));
    expect((await r.dataFiles('main', 'u')).map((f) => f.id)).toEqual(other);
    await r.close();
  });
});
