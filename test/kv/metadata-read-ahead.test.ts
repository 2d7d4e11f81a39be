// A process that resolves many tables reads every table's metadata in one scan from its eighth (decision
// 0049), and does so beside its lookups: the lookup that starts the scan answers from its own table's rows,
// as the seven before it did, instead of waiting for every table's columns (on 10,000 tables of ten columns
// that lookup took 0.32–0.43 s where the others took 0.5–3 ms). Once the scan is done, lookups come from it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { group, groupPrefix } from '../../keys/groups.js';
import { Space } from '../../keys/spaces.js';
import { IndexView, type Range } from '../../src/kv/read-view.js';
import { openCatalog, tempDir } from '../helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const TABLES = 30;
const columnsOf = (i: number) => Array.from({ length: 1 + (i % 4) }, (_, k) => ({ name: `c${k}_${i}`, type: k % 2 === 0 ? 'int64' : 'varchar' }));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('metadata read ahead', () => {
  it('the lookup that starts the read of every table answers before it ends, and the lookups after it come from it', async () => {
    const dir = await tempDir();
    const writer = await openCatalog({ dir });
    await writer.transaction(async (tx) => {
      for (let i = 0; i < TABLES; i++) await tx.createTable('main', `t${i}`, columnsOf(i));
    });
    await writer.close();

    // Every read of all tables' columns is held until released; reads of one table's columns are counted.
    const allColumns = Buffer.from(groupPrefix(group(Space.Column)));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let wholeReads = 0;
    let wholeReadDone = false;
    let ownReads = 0;
    const scan = IndexView.prototype.scanBatches;
    vi.spyOn(IndexView.prototype, 'scanBatches').mockImplementation(function (this: IndexView, range: Range) {
      const inner = scan.call(this, range);
      const from = range.gte === undefined ? undefined : Buffer.from(range.gte);
      if (from?.equals(allColumns)) {
        wholeReads++;
        return (async function* () {
          await held;
          yield* inner;
          wholeReadDone = true;
        })();
      }
      if (from !== undefined && from[0] === Space.Column && from.length > allColumns.length) ownReads++;
      return inner;
    });

    // A fresh process's cache: a new open of the same directory.
    const c = await openCatalog({ dir });
    const lookUp = async (i: number) => {
      const r = await c.reader();
      try {
        const found = r.table('main', `t${i}`);
        const outcome = await Promise.race([found.then(() => 'answered'), sleep(5_000).then(() => 'still waiting')]);
        expect(outcome, `lookup ${i + 1}, the whole read ${wholeReadDone ? 'done' : 'held'}`).toBe('answered');
        expect((await found).columns.map(({ name, type }) => ({ name, type }))).toEqual(columnsOf(i));
      } finally {
        await r.close();
      }
    };
    try {
      for (let i = 0; i < 12; i++) await lookUp(i);
      expect(wholeReads).toBe(1);
      expect(ownReads).toBe(12);
    } finally {
      release();
    }
    await vi.waitFor(() => expect(wholeReadDone).toBe(true), { timeout: 20_000 });
    await sleep(50);
    ownReads = 0;
    for (let i = 12; i < TABLES; i++) await lookUp(i);
    expect(ownReads).toBe(0);
    expect(wholeReads).toBe(1);
  });
});
