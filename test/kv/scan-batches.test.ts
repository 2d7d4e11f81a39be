// A view's scan hands over every entry of its range once, in key order, from its frozen state, however many
// batches it takes and wherever the caller stops: the next batch is read while the caller works on this one,
// and a caller that stops early leaves nothing running under a closed view or store.
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { encodeKey } from '../../keys/key-codec.js';
import { Space } from '../../keys/spaces.js';
import { encodeValue } from '../../keys/value-codec.js';
import { KvStore } from '../../src/kv/kv-store.js';
import { tempDir } from '../helpers.js';

const stores: KvStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

const key = (i: number) => encodeKey(Space.Metadata, [`k${String(i).padStart(5, '0')}`]);
// Values of ~200 bytes, like a data file's row: a batch of 256 of them is past classic-level's default 16 KiB.
const put = (i: number, v: string) => ({ type: 'put' as const, key: key(i), value: encodeValue({ value: v.padEnd(200, '.') }) });
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const range = { gte: key(0), lt: key(99_999) };

describe('scans', () => {
  it('of 0 to 1,300 entries hand over each once, in order, from the frozen state; one stopped anywhere closes', async () => {
    const kv = await KvStore.open(path.join(await tempDir(), 'index'));
    stores.push(kv);
    await kv.apply(kvSeq(1), 'txn-1', Array.from({ length: 1300 }, (_, i) => put(i, `v${i}`)));
    await kv.landed();
    const view = await kv.readView();
    await kv.apply(kvSeq(2), 'txn-2', Array.from({ length: 1300 }, (_, i) => put(i + 2000, 'later')));
    await kv.landed();
    try {
      for (const n of [0, 1, 255, 256, 257, 512, 1300]) {
        const seen: string[] = [];
        for await (const [k] of view.scan({ gte: key(0), lt: key(n) })) seen.push(hex(k));
        expect(seen).toEqual(Array.from({ length: n }, (_, i) => hex(key(i))));
      }
      // Stopped in the first batch, at a batch's end (a read of the next under way) and in a later one.
      for (const stop of [1, 256, 700]) {
        let taken = 0;
        for await (const _ of view.scan(range)) if (++taken === stop) break;
        expect(taken).toBe(stop);
      }
      let total = 0;
      for await (const batch of view.scanBatches(range)) total += batch.length;
      expect(total).toBe(1300);
    } finally {
      await view.close();
    }
    // A scan left at a batch's end (a whole batch of such rows: no byte limit cuts it short), with its store
    // closed right after: the store closes and nothing is left to throw.
    const last = await kv.readView();
    const it = last.scanBatches(range)[Symbol.asyncIterator]();
    expect((await it.next()).value).toHaveLength(256);
    await it.return(undefined);
    await last.close();
  });
});
