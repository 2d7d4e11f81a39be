// A view's getMany answers as its point reads do, whichever way it reads: one by one on this thread (up to
// SYNC_GET_MANY keys) or as one multi-get through the thread pool (more), in the view's frozen state, with the
// puts not landed yet merged in.
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { encodeKey } from '../../keys/key-codec.js';
import { Space } from '../../keys/spaces.js';
import { decodeValue, encodeValue } from '../../keys/value-codec.js';
import { KvStore } from '../../src/kv/kv-store.js';
import { tempDir } from '../helpers.js';

const stores: KvStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

const key = (i: number) => encodeKey(Space.Metadata, [`k${i}`]);
const put = (i: number, v: string) => ({ type: 'put' as const, key: key(i), value: encodeValue({ value: v }) });
const hex = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('hex'));

describe('getMany', () => {
  it('of 1 to 3,000 keys, present, missing, unlanded and put after the view, equals the point reads', async () => {
    const kv = await KvStore.open(path.join(await tempDir(), 'index'));
    stores.push(kv);
    // Even keys landed; every third one then rewritten by an entry that has not landed when the view opens.
    await kv.apply(kvSeq(1), 'txn-1', Array.from({ length: 1500 }, (_, j) => put(2 * j, `landed ${2 * j}`)));
    await kv.landed();
    await kv.apply(kvSeq(2), 'txn-2', Array.from({ length: 1000 }, (_, j) => put(3 * j, `unlanded ${3 * j}`)));
    const view = await kv.readView();
    // After the view: not to be seen.
    await kv.apply(kvSeq(3), 'txn-3', Array.from({ length: 3000 }, (_, i) => put(i, `later ${i}`)));
    try {
      for (const n of [1, 31, 100, 1024, 1025, 3000]) {
        const keys = Array.from({ length: n }, (_, i) => key((i * 7919) % 3000));
        const many = (await view.getMany(keys)).map(hex);
        const one = await Promise.all(keys.map(async (k) => hex(await view.get(k))));
        expect(many).toEqual(one);
        expect(many.filter((v) => v !== undefined).length).toBeGreaterThan(0);
        if (n >= 100) expect(many.some((v) => v === undefined)).toBe(true);
      }
      const [landed, unlanded, missing] = await view.getMany([key(2), key(3), key(1)]);
      expect([landed, unlanded, missing].map((v) => v && decodeValue(key(0), v))).toEqual([{ value: 'landed 2' }, { value: 'unlanded 3' }, undefined]);
    } finally {
      await view.close();
    }
  });
});
