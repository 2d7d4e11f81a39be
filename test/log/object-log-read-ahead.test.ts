// Catching up on a log kept as objects reads ahead: while entries keep coming, up to sixteen reads are in
// flight (a round trip per sixteen entries on S3, not per entry), the entries still come in order, and a
// catch-up that finds one new entry asks the store what it did reading one at a time.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { ObjectLog } from '../../src/log/object-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { entry } from '../support/segments.js';
import { tempDir } from '../helpers.js';

/** A log of entries 1 to `n` whose reads take a few milliseconds each, and what its store saw of them. */
async function slowLog(n: number) {
  const store = new DirectoryStore(await tempDir());
  const plain = new ObjectLog(store);
  for (let s = 1; s <= n; s++) expect(await plain.append(entry(s))).toBe(true);
  const seen = { gets: [] as string[], inFlight: 0, most: 0 };
  const log = new ObjectLog(
    new FaultyStore(store, {
      beforeOperation: async (_n, op, key) => {
        if (op !== 'get') return;
        seen.gets.push(key);
        seen.most = Math.max(seen.most, ++seen.inFlight);
        await sleep(3);
        seen.inFlight--;
      },
    }),
  );
  return { log, seen };
}

async function seqsAfter(log: ObjectLog, seq: number): Promise<number[]> {
  const out: number[] = [];
  for await (const e of log.readAfter(kvSeq(seq))) out.push(e.seq);
  return out;
}

describe('ObjectLog: catching up reads ahead', () => {
  it('200 entries come in order with sixteen reads in flight at most and at some point, and few reads past the end', async () => {
    const { log, seen } = await slowLog(200);
    expect(await seqsAfter(log, 0)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(seen.most).toBe(16);
    // Each entry once, then the reads made ahead past the end (fewer than sixteen) and nothing else.
    expect(new Set(seen.gets.slice(0, 200)).size).toBe(200);
    expect(seen.gets.length).toBeGreaterThan(200);
    expect(seen.gets.length).toBeLessThanOrEqual(200 + 16);
  });

  it('one new entry costs three reads, as read one by one: it, the one after, and the one after that', async () => {
    const { log, seen } = await slowLog(5);
    expect(await seqsAfter(log, 4)).toEqual([5]);
    expect(seen.gets.map((k) => Number(k.slice('log/'.length)))).toEqual([5, 6, 7]);
    seen.gets.length = 0;
    expect(await seqsAfter(log, 5)).toEqual([]);
    expect(seen.gets.map((k) => Number(k.slice('log/'.length)))).toEqual([6, 7]);
  });
});
