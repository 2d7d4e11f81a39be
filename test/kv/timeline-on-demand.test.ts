// The snapshot timeline (every snapshot's commit time in memory) is read when a time is first asked for, in
// the background, and never by a process that asks for none: every CLI call is a process, and most never
// name a snapshot by time. Until it is read, a lookup seeks the time index; before, during and after the read
// every answer is the one the commit times give.
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as path from 'node:path';
import { snapshotId } from '../../keys/ids.js';
import { KvStore } from '../../src/kv/kv-store.js';
import { SnapshotTimeline } from '../../src/kv/snapshot-timeline.js';
import type { Catalog } from '../../src/index.js';
import { openCatalog, steppingClock, tempDir } from '../helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A catalog in `dir` with `n` snapshots after snapshot 0, committed a second apart; their times, by id. */
async function history(dir: string, n: number): Promise<number[]> {
  const c = await openCatalog({ dir, clock: steppingClock() });
  for (let i = 0; i < n; i++) await c.transaction((tx) => tx.createTable('main', `t${i}`, [{ name: 'a', type: 'int32' }]));
  const times: number[] = [];
  for (const s of await c.snapshots()) times[s.id] = s.time.getTime();
  await c.close();
  return times;
}

/** The newest snapshot committed at or before `t` (ties: the higher id), from the times alone. */
const expected = (times: number[], t: number) => times.findLastIndex((x) => x <= t);

describe('the snapshot timeline, read on demand', () => {
  it('is never read by a process that names no snapshot by time and ends within a second of its open', async () => {
    const dir = await tempDir();
    await history(dir, 5);
    const load = vi.spyOn(SnapshotTimeline.prototype, 'load');
    // The second is the index's timer (readTimelineLater): faked, it does not pass.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const c = await openCatalog({ dir });
      const r = await c.reader();
      expect((await r.tables('main')).length).toBe(5);
      await r.close();
      await c.transaction((tx) => tx.createTable('main', 'late', [{ name: 'a', type: 'int32' }]));
      await c.close();
    } finally {
      vi.useRealTimers();
    }
    expect(load).not.toHaveBeenCalled();
  });

  it('is read a second after the open by a process that lives on, and kept through the commits made meanwhile', async () => {
    const dir = await tempDir();
    const times = await history(dir, 5);
    // The read's first batch is held until three commits have been applied: they land while it reads.
    let committed!: () => void;
    const commitsDone = new Promise<void>((resolve) => (committed = resolve));
    const original = SnapshotTimeline.prototype.load;
    const load = vi.spyOn(SnapshotTimeline.prototype, 'load').mockImplementation(function (this: SnapshotTimeline, seq, entries, stop) {
      const held = async function* () {
        await commitsDone;
        yield* entries;
      };
      return original.call(this, seq, held(), stop);
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let c: Catalog;
    try {
      c = await openCatalog({ dir, clock: steppingClock(times.at(-1)!) });
      expect(load).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1000);
    } finally {
      vi.useRealTimers();
    }
    await vi.waitFor(() => expect(load).toHaveBeenCalledTimes(1));
    for (let i = 0; i < 3; i++) await c.transaction((tx) => tx.createTable('main', `late${i}`, [{ name: 'a', type: 'int32' }]));
    committed();
    await load.mock.results[0]!.value;
    const all: number[] = [];
    for (const s of await c.snapshots()) all[s.id] = s.time.getTime();
    for (const [id, t] of all.entries()) {
      const r = await c.reader({ timestamp: new Date(t) });
      expect(r.snapshot.id).toBe(id);
      await r.close();
    }
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('is not read again by the timer once a lookup had it read', async () => {
    const dir = await tempDir();
    const times = await history(dir, 3);
    const load = vi.spyOn(SnapshotTimeline.prototype, 'load');
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const c = await openCatalog({ dir });
      const r = await c.reader({ timestamp: new Date(times[1]!) });
      expect(r.snapshot.id).toBe(1);
      await r.close();
      while (load.mock.calls.length === 0) await turn();
      await load.mock.results[0]!.value;
      vi.advanceTimersByTime(1000);
      for (let i = 0; i < 5; i++) await turn();
      expect(load).toHaveBeenCalledTimes(1);
      await c.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('answers every time right before, while and after it is read, and is read once', async () => {
    const dir = await tempDir();
    const times = await history(dir, 40);
    const load = vi.spyOn(SnapshotTimeline.prototype, 'load');
    const c = await openCatalog({ dir });
    const probes = [times[0]! - 1, ...times.flatMap((t) => [t - 1, t, t + 500])];
    const answers = async () => {
      const got: number[] = [];
      for (const t of probes) {
        const r = await c.reader({ timestamp: new Date(t) }).catch(() => undefined);
        got.push(r === undefined ? -1 : r.snapshot.id);
        await r?.close();
      }
      return got;
    };
    const want = probes.map((t) => expected(times, t));
    // The first lookup misses and starts the read; those after it run while it does, or after.
    expect(await answers()).toEqual(want);
    expect(load).toHaveBeenCalledTimes(1);
    await load.mock.results[0]!.value;
    expect(await answers()).toEqual(want);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('answers a time past any a key holds, asked before it is read, with the newest snapshot (the index is sought)', async () => {
    const dir = await tempDir();
    await history(dir, 2);
    const c = await openCatalog({ dir });
    for (const t of [1e300, Number.MAX_SAFE_INTEGER + 2, 2 ** 64 + 1]) {
      const r = await c.reader({ timestamp: t });
      expect(r.snapshot.id).toBe(2);
      await r.close();
    }
  });

  it('is read again at the next miss when a read gave up (an apply ran meanwhile)', async () => {
    const dir = await tempDir();
    const times = await history(dir, 4);
    const load = vi.spyOn(SnapshotTimeline.prototype, 'load').mockImplementationOnce(async () => undefined);
    const c = await openCatalog({ dir });
    const at = async (t: number) => {
      const r = await c.reader({ timestamp: new Date(t) });
      await r.close();
      return r.snapshot.id;
    };
    expect(await at(times[2]!)).toBe(2);
    await load.mock.results[0]!.value;
    await new Promise((resolve) => setImmediate(resolve));
    expect(await at(times[3]!)).toBe(3);
    expect(load).toHaveBeenCalledTimes(2);
    await load.mock.results[1]!.value;
    expect(await at(times[1]!)).toBe(1);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('is not started by a miss once the index is closing', async () => {
    const dir = await tempDir();
    await history(dir, 3);
    const kv = await KvStore.open(path.join(dir, 'index'));
    const view = await kv.readView();
    const load = vi.spyOn(SnapshotTimeline.prototype, 'load');
    const closing = kv.close();
    expect(await view.snapshotAtOrBefore(Date.now(), snapshotId(3))).toBeNull();
    await view.close();
    await closing;
    expect(load).not.toHaveBeenCalled();
  });

  it('is stopped by close at its next batch: close does not read the rest', async () => {
    const dir = await tempDir();
    const times = await history(dir, 3);
    const c = await openCatalog({ dir });
    const original = SnapshotTimeline.prototype.load;
    let handed = 0;
    // The time index handed over an entry at a time, each only once close has begun.
    vi.spyOn(SnapshotTimeline.prototype, 'load').mockImplementation(function (this: SnapshotTimeline, seq, entries, stop) {
      const oneByOne = async function* () {
        for await (const batch of entries) {
          for (const entry of batch) {
            while (stop?.() !== true) await new Promise((resolve) => setTimeout(resolve, 5));
            handed++;
            yield [entry];
          }
        }
      };
      return original.call(this, seq, oneByOne(), stop);
    });
    const r = await c.reader({ timestamp: new Date(times[2]!) });
    expect(r.snapshot.id).toBe(2);
    await r.close();
    await c.close();
    expect(times.length).toBe(4);
    expect(handed).toBe(1);
  });
});
