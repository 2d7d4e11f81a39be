// The test doubles of test/store/doubles/: each passes the store conformance suite over a directory (its
// localRoot forwarded, so a segmented log runs through it too), and does what the tests and the bench
// that use it take it to do.
import { describe, expect, it } from 'vitest';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { tempDir } from '../helpers.js';
import { objectStoreConformance } from './conformance/index.js';
import { CountingStore } from './doubles/counting-store.js';
import { FaultyStore, type StoreOperation } from './doubles/faulty-store.js';
import { passThroughDoubles } from './doubles/pass-through.js';

for (const [name, wrap] of Object.entries(passThroughDoubles)) {
  objectStoreConformance(`${name} over a directory`, async () => wrap(new DirectoryStore(await tempDir())), { localRoot: true });
}

const body = new Uint8Array([1]);

describe('CountingStore', () => {
  it('counts a request per call, per key deleted and per page of 1,000 keys listed, as S3 bills them', async () => {
    const s = new CountingStore(new DirectoryStore(await tempDir(), { sync: false }));
    const keys = Array.from({ length: 1001 }, (_, i) => `k/${String(i).padStart(4, '0')}`);
    await Promise.all(keys.map((k) => s.putIfAbsent(k, body)));
    await s.putIfAbsent('k/0000', body);
    await s.get('k/0000');
    await s.info('k/0000');
    await s.replace('k/0000', body);
    for await (const _ of s.list('k/')) void _;
    for await (const _ of s.list('none/')) void _;
    await s.delete(['k/0000', 'k/0001', 'k/none']);
    expect(s.counts).toEqual({ get: 1, create: 1002, list: 3, delete: 3, replace: 1, info: 1 });
    expect(s.total()).toBe(1002 + 1 + 1 + 1 + 3 + 3);
  });
});

describe('FaultyStore', () => {
  it('numbers each operation from 1; a throw before one fails it with nothing done, a throw after one loses the answer of what was done', async () => {
    const inner = new DirectoryStore(await tempDir());
    const seen: string[] = [];
    const fail = (at: number, n: number) => {
      if (n === at) throw new Error(`fault at ${n}`);
    };
    let before = 0;
    let after = 0;
    const s = new FaultyStore(inner, {
      beforeOperation: (n: number, op: StoreOperation, key: string) => {
        seen.push(`${n} ${op} ${key}`);
        fail(before, n);
      },
      afterOperation: (n: number) => fail(after, n),
    });
    before = 1;
    await expect(s.putIfAbsent('a', body)).rejects.toThrow('fault at 1');
    expect(await inner.get('a')).toBeUndefined();
    after = 2;
    await expect(s.putIfAbsent('a', body)).rejects.toThrow('fault at 2');
    expect(await inner.get('a')).toEqual(Buffer.from(body));
    expect(await s.putIfAbsent('a', body)).toBe(false);
    expect(seen).toEqual(['1 putIfAbsent a', '2 putIfAbsent a', '3 putIfAbsent a']);
  });
});
