// Turns on a log kept as objects (src/log/turns.ts, decision 0060): a writer waiting for its turn goes once no
// older mark stands, whatever younger ones do; a mark its writer stopped renewing holds only so long.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Turns, TURNS_PREFIX } from '../../src/log/turns.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { tempDir } from '../helpers.js';

const markOf = (ms: number, id: string) => `${TURNS_PREFIX}${String(ms).padStart(20, '0')}-${id.repeat(16 / id.length)}`;

async function setUp() {
  const root = await tempDir();
  const store = new DirectoryStore(root);
  await store.readClock();
  return { root, store, turns: new Turns(store), now: store.clockNow()! };
}

describe('turns on a log kept as objects', () => {
  it('a waiter goes after an older mark is gone, not before; a younger one does not hold it back', async () => {
    const { store, turns, now } = await setUp();
    const older = markOf(Math.floor(now) - 5, 'aaaa');
    const younger = markOf(Math.floor(now) + 60_000, 'ffff');
    await store.putIfAbsent(older, new Uint8Array(0));
    await store.putIfAbsent(younger, new Uint8Array(0));
    let ran = false;
    const turn = turns.run(async () => {
      ran = true;
      // Its own mark stands while it runs.
      const marks: string[] = [];
      for await (const o of store.list(TURNS_PREFIX)) marks.push(o.key);
      return marks;
    });
    await sleep(50);
    expect(ran).toBe(false);
    expect(turns.sawWaiterWithin(1_000)).toBe(true);
    await store.delete([older]);
    const marks = await turn;
    expect(marks).toHaveLength(2);
    expect(marks).toContain(younger);
    // And it is gone after.
    const left: string[] = [];
    for await (const o of store.list(TURNS_PREFIX)) left.push(o.key);
    expect(left).toEqual([younger]);
  });

  it('a mark not renewed for 6 s holds no one back, and whoever comes across it deletes it; what is no mark is neither', async () => {
    const { root, store, turns, now } = await setUp();
    const dead = markOf(Math.floor(now) - 60_000, 'dead');
    // Under the prefix, but no mark: a data file of a catalog whose data path was there before it was reserved.
    const other = `${TURNS_PREFIX}0001.parquet`;
    for (const key of [dead, other]) {
      await store.putIfAbsent(key, new Uint8Array(0));
      const old = new Date(now - 7_000);
      fs.utimesSync(path.join(root, key), old, old);
    }
    expect(await turns.run(async () => 'ran')).toBe('ran');
    await sleep(20);
    expect(fs.existsSync(path.join(root, dead))).toBe(false);
    expect(fs.existsSync(path.join(root, other))).toBe(true);
  });

  it('a store that refuses the marks leaves the writer unordered, not failed', async () => {
    const { root, now } = await setUp();
    const store = new DirectoryStore(root);
    await store.putIfAbsent(markOf(Math.floor(now), 'aaaa'), new Uint8Array(0));
    let refused = 0;
    const refusing = new FaultyStore(store, {
      beforeOperation: (_n, op, key) => {
        if (key.startsWith(TURNS_PREFIX) && op !== 'delete') {
          refused++;
          throw Object.assign(new Error('AccessDenied'), { name: 'AccessDenied' });
        }
      },
    });
    // An older mark stands, but the store will not list it: the turn runs at once.
    expect(await new Turns(refusing).run(async () => 'ran')).toBe('ran');
    expect(refused).toBeGreaterThanOrEqual(2);
  });

  it('a writer that is not waiting sees a mark beside every fourth create', async () => {
    const { store, turns, now } = await setUp();
    await store.putIfAbsent(markOf(Math.floor(now), 'aaaa'), new Uint8Array(0));
    const looks = [turns.beside(), turns.beside(), turns.beside(), turns.beside(), turns.beside()];
    expect(looks.map((l) => l !== undefined)).toEqual([true, false, false, false, true]);
    await Promise.all(looks);
    expect(turns.sawWaiterWithin(1_000)).toBe(true);
  });
});
