// Advancing retain-from at its edges: each refusal word for word (what was asked, where retain-from and the
// newest snapshot are), which leases clamp it (an unexpired one above the current horizon and below the
// target, no other), and an advance that moves nothing writing nothing.
import { describe, expect, it } from 'vitest';
import { type Catalog, isStrataError } from '../../src/index.js';
import { openCatalog } from '../helpers.js';

const NOW = Date.UTC(2026, 0, 1);

/** A catalog with snapshots 0 to 6 and a clock the test sets. */
async function sixSnapshots(): Promise<{ c: Catalog; clock: { now: number } }> {
  const clock = { now: NOW };
  const c = await openCatalog({ clock: () => clock.now });
  await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]));
  for (let i = 2; i <= 6; i++) await c.transaction((tx) => tx.addDataFile('main', 't', { path: `f${i}`, recordCount: 1, fileSizeBytes: 1 }));
  return { c, clock };
}

async function refusal(p: Promise<unknown>): Promise<{ message: string; snapshot?: number }> {
  const err = await p.catch((e: unknown) => e);
  expect(isStrataError(err, 'INVALID_ARGUMENT'), String(err)).toBe(true);
  return err as { message: string; snapshot?: number };
}

describe('advanceRetainFrom refuses', () => {
  it('a missing target, both targets, neither, and a snapshot that is no id', async () => {
    const { c } = await sixSnapshots();
    expect((await refusal(c.advanceRetainFrom(undefined as never))).message).toBe(
      'advanceRetainFrom() needs { snapshot } or { olderThan }: where retain-from moves to',
    );
    expect((await refusal(c.advanceRetainFrom({ snapshot: 1, olderThan: 0 } as never))).message).toBe(
      'advanceRetainFrom() takes { snapshot } or { olderThan }, not both',
    );
    expect((await refusal(c.advanceRetainFrom({} as never))).message).toBe('advanceRetainFrom takes { snapshot } or { olderThan }');
    expect((await refusal(c.advanceRetainFrom({ Snapshot: 1 } as never))).message).toBe(
      'advanceRetainFrom() has no option "Snapshot" (did you mean "snapshot"?); its options are snapshot, olderThan',
    );
    for (const [n, got] of [[-1, '-1'], [1.5, '1.5'], ['2', '"2"']] as const) {
      expect((await refusal(c.advanceRetainFrom({ snapshot: n } as never))).message).toBe(`snapshot must be a snapshot id (an integer >= 0), got ${got}`);
    }
    expect((await refusal(c.advanceRetainFrom({ olderThan: 'last week' }))).message).toMatch(/^olderThan must be ms since epoch/);
    expect(await c.retainFrom()).toBe(0);
  });

  it('moving backwards or past the newest snapshot, naming the snapshot asked for', async () => {
    const { c } = await sixSnapshots();
    expect(await c.advanceRetainFrom({ snapshot: 6 })).toEqual({ retainFrom: 6 });
    const back = await refusal(c.advanceRetainFrom({ snapshot: 5 }));
    expect(back.message).toBe('retain-from is already 6 and never moves backwards; 5 is below it (history below 6 may be excised already)');
    expect(back.snapshot).toBe(5);
    const past = await refusal(c.advanceRetainFrom({ snapshot: 7 }));
    expect(past.message).toBe('snapshot 7 is past the newest snapshot (6); retain-from can reach 6 at most');
    expect(past.snapshot).toBe(7);
  });
});

describe('advanceRetainFrom', () => {
  it('olderThan the epoch keeps everything', async () => {
    const { c } = await sixSnapshots();
    expect(await c.advanceRetainFrom({ olderThan: 0 })).toEqual({ retainFrom: 0 });
  });

  it('is clamped by an unexpired lease above the horizon and below the target, and by no other', async () => {
    const { c, clock } = await sixSnapshots();
    await c.createTag('old', 1);
    expect(await c.advanceRetainFrom({ snapshot: 2 })).toEqual({ retainFrom: 2 });
    // A lease below retain-from, taken through a tag: it keeps its snapshot, and never pulls retain-from back.
    const below = await c.reader({ tag: 'old', lease: { ttlMs: 60_000, holder: 'below' } });
    const at4 = await c.reader({ snapshot: 4, lease: { ttlMs: 60_000, holder: 'at-4' } });
    expect(await c.advanceRetainFrom({ snapshot: 4 })).toEqual({ retainFrom: 4 }); // a lease at the target holds nothing back
    await at4.close();
    const at5 = await c.reader({ snapshot: 5, lease: { ttlMs: 1000, holder: 'at-5' } });
    const lease5 = at5.lease!;
    expect(await c.advanceRetainFrom({ snapshot: 6 }, { dryRun: true })).toEqual({
      retainFrom: 5,
      clampedBy: { lease: lease5.id, holder: 'at-5', snapshot: 5, expiresAt: new Date(NOW + 1000) },
    });
    clock.now = NOW + 1000; // the lease of 5 expires this millisecond: it holds nothing from now on
    expect(await c.advanceRetainFrom({ snapshot: 6 })).toEqual({ retainFrom: 6 });
    for (const r of [below, at5]) await r.close();
  });

  it('writes nothing when retain-from stays where it is', async () => {
    const { c } = await sixSnapshots();
    await c.advanceRetainFrom({ snapshot: 3 });
    await c.excise();
    // An excision job's id is the log entry that starts it, and one with nothing to excise writes one entry:
    // consecutive jobs with nothing written between.
    const first = (await c.excise()).job!;
    expect(await c.advanceRetainFrom({ snapshot: 3 })).toEqual({ retainFrom: 3 });
    expect(await c.advanceRetainFrom({ olderThan: 0 })).toEqual({ retainFrom: 3 });
    expect((await c.excise()).job).toBe(first + 1);
  });
});
