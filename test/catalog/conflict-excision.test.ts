// A transaction whose function outlives the history it is checked against: while it runs, another commit
// touches a data file it deletes from, retain-from moves past that commit and excision removes the commit's
// changes row or the file's row. The conflict check must not read a row that is gone as "nothing changed":
// that would commit a delete file over the other's (its deletes undone) or one for a file no longer there.
import { describe, expect, it } from 'vitest';
import { type Catalog, isStrataError, type StrataError, type Transaction } from '../../src/index.js';
import { openCatalog } from '../helpers.js';

const int = [{ name: 'i', type: 'int32' }];
const file = (p: string) => ({ path: p, recordCount: 10, fileSizeBytes: 100 });
const deleteFrom = (tx: Transaction, dataFileId: number, p: string) => tx.addDeleteFile('main', 't', { dataFileId, path: p, deleteCount: 1, fileSizeBytes: 1 });

/** A table of data files a and b, and ours: a delete from a whose function waits until `others` have run. */
async function raceWithExcision(others: (c: Catalog, a: number) => Promise<unknown>) {
  const c = await openCatalog();
  await c.transaction(async (tx) => {
    await tx.createTable('main', 't', int);
    await tx.addDataFile('main', 't', file('a'));
    await tx.addDataFile('main', 't', file('b'));
  });
  const [a] = (await (await c.reader()).dataFiles('main', 't')).map((f) => f.id);
  let resume!: () => void;
  const othersDone = new Promise<void>((r) => (resume = r));
  let started!: () => void;
  const ranOnBase = new Promise<void>((r) => (started = r));
  const ours = c
    .transaction(async (tx) => {
      started();
      await othersDone;
      await deleteFrom(tx, a!, 'ours');
    })
    .catch((e: Error) => e);
  await ranOnBase;
  await others(c, a!);
  const head = (await c.snapshots()).at(-1)!.id;
  await c.advanceRetainFrom({ snapshot: head });
  await c.excise();
  resume();
  return { c, a: a!, out: await ours };
}

async function deletes(c: Catalog): Promise<string[]> {
  const r = await c.reader();
  const out = (await r.deleteFiles('main', 't')).map((d) => d.path);
  await r.close();
  return out;
}

/** CONFLICT naming `what`, and snapshot 2 (the commit it could not be checked against) as its snapshot. */
function expectExcised(out: unknown, what: RegExp): void {
  expect(isStrataError(out, 'CONFLICT'), String(out)).toBe(true);
  expect((out as StrataError).snapshot).toBe(2);
  expect((out as Error).message).toMatch(what);
  expect((out as Error).message).toMatch(/was excised while this transaction ran .*nothing was written — read the new state and run the transaction again$/);
}

describe('a conflict check against history excised while the transaction ran', () => {
  it("a delete from a file another commit deleted from, whose changes row is gone: CONFLICT, and the other's deletes stay", async () => {
    const { c, out } = await raceWithExcision(async (c, a) => {
      await c.transaction((tx) => deleteFrom(tx, a, 'theirs')); // snapshot 2
      // A later commit, so that retain-from passes snapshot 2 and its changes row goes.
      await c.transaction((tx) => tx.addDataFile('main', 't', file('c')));
    });
    expectExcised(out, /^what snapshot 2 changed was excised/);
    expect(await deletes(c)).toEqual(['theirs']);
    expect((await c.snapshots()).at(-1)!.id).toBe(3);
    expect((await c.verify()).violations).toEqual([]);
  });

  // Retain-from at the removal itself: its changes row stays (it is not below), the file's row goes.
  const removals: [string, (c: Catalog, a: number) => Promise<unknown>][] = [
    ['removed', (c, a) => c.transaction((tx) => tx.removeDataFile('main', 't', a))],
    [
      'rewrote in a compaction',
      (c, a) =>
        c.transaction(
          async (tx) => {
            await tx.removeDataFile('main', 't', a);
            await tx.addDataFile('main', 't', file('a2'));
          },
          { maintenance: true },
        ),
    ],
    ['deleted every row of', (c, a) => c.transaction((tx) => tx.addDeleteFile('main', 't', { dataFileId: a, path: 'all', deleteCount: 10, fileSizeBytes: 1 }))],
  ];
  for (const [what, removal] of removals) {
    it(`a delete from a file another commit ${what}, whose row is gone: CONFLICT naming the file, nothing written`, async () => {
      const { c, a, out } = await raceWithExcision(removal); // snapshot 2
      expectExcised(out, new RegExp(`^data file ${a} of table \\d+, which this transaction deletes from and another transaction removed, was excised`));
      expect(await deletes(c)).toEqual([]);
      expect((await c.snapshots()).at(-1)!.id).toBe(2);
      expect((await c.verify()).violations).toEqual([]);
    });
  }
});
