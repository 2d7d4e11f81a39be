// The conformance suite every ObjectStore runs (as abstract-level's suite is run by every implementation).
// A store passes it or is not a store Strata can stand on.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/errors.js';
import type { ObjectInfo, ObjectStore } from '../../src/store/object-store.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

async function collect(it: AsyncIterable<ObjectInfo>): Promise<string[]> {
  const out: string[] = [];
  for await (const o of it) out.push(o.key);
  return out;
}

/** `make` returns an empty store, private to the calling test. */
export function objectStoreConformance(name: string, make: () => Promise<ObjectStore>): void {
  describe(`ObjectStore conformance: ${name}`, () => {
    it('get of a missing key is undefined', async () => {
      const s = await make();
      expect(await s.get('nothing/here')).toBeUndefined();
    });

    it('create-if-absent creates once and never overwrites', async () => {
      const s = await make();
      expect(await s.putIfAbsent('log/1', bytes('first'))).toBe(true);
      expect(await s.putIfAbsent('log/1', bytes('second'))).toBe(false);
      expect(text(await s.get('log/1'))).toBe('first');
    });

    it('exactly one of 16 concurrent creates of one key wins, and its bytes are what is stored', async () => {
      const s = await make();
      for (let round = 0; round < 5; round++) {
        const key = `race/${round}`;
        const results = await Promise.all(
          Array.from({ length: 16 }, (_, i) => s.putIfAbsent(key, bytes(`writer-${i}`.padEnd(10_000, '.')))),
        );
        const winners = results.flatMap((won, i) => (won ? [i] : []));
        expect(winners).toHaveLength(1);
        expect(text(await s.get(key))).toBe(`writer-${winners[0]}`.padEnd(10_000, '.'));
      }
    });

    it('replace writes over an object or creates it, and a create after it still finds the name taken', async () => {
      const s = await make();
      expect(await s.putIfAbsent('log/1', bytes('entry'))).toBe(true);
      await s.replace('log/1', bytes('stub'));
      expect(text(await s.get('log/1'))).toBe('stub');
      expect(await s.putIfAbsent('log/1', bytes('again'))).toBe(false);
      await s.replace('log/2', bytes('new'));
      expect(text(await s.get('log/2'))).toBe('new');
      expect(await collect(s.list('log/'))).toEqual(['log/1', 'log/2']);
    });

    it('holds every key up to its maxKeyBytes: the catalog accepts file paths up to it', async () => {
      const s = await make();
      // Segments a file system holds (NAME_MAX 255), the whole exactly maxKeyBytes long.
      let key = '';
      while (key.length < s.maxKeyBytes) key += `${key === '' ? '' : '/'}${'k'.repeat(200)}`;
      key = key.slice(0, s.maxKeyBytes).replace(/\/+$/, 'x');
      expect(Buffer.byteLength(key)).toBe(s.maxKeyBytes);
      expect(await s.putIfAbsent(key, bytes('long'))).toBe(true);
      expect(text(await s.get(key))).toBe('long');
      await s.delete([key]);
      expect(await s.get(key)).toBeUndefined();
    });

    it('stores empty and binary bodies exactly', async () => {
      const s = await make();
      const binary = Uint8Array.from({ length: 256 }, (_, i) => i);
      await s.putIfAbsent('bin', binary);
      await s.putIfAbsent('empty', new Uint8Array());
      expect(Buffer.from((await s.get('bin'))!)).toEqual(Buffer.from(binary));
      expect((await s.get('empty'))!.length).toBe(0);
    });

    it('lists keys under a prefix in byte order, past 1,000 keys, and after a start key', async () => {
      const s = await make();
      const keys = Array.from({ length: 1203 }, (_, i) => `log/${String(i).padStart(6, '0')}`);
      for (let i = 0; i < keys.length; i += 100) {
        await Promise.all(keys.slice(i, i + 100).map((k) => s.putIfAbsent(k, bytes(k))));
      }
      await s.putIfAbsent('logs-other/x', bytes('x'));
      await s.putIfAbsent('a', bytes('a'));
      expect(await collect(s.list('log/'))).toEqual(keys);
      expect(await collect(s.list('log/', { startAfter: keys[1099]! }))).toEqual(keys.slice(1100));
      expect(await collect(s.list('log/0011'))).toEqual(keys.filter((k) => k.startsWith('log/0011')));
      expect(await collect(s.list('log'))).toEqual([...keys, 'logs-other/x']);
      expect(await collect(s.list('nope/'))).toEqual([]);
    });

    it('lists when each object was written (orphan sweeps go by age)', async () => {
      const s = await make();
      const before = Date.now();
      await s.putIfAbsent('data/aged', bytes('x'));
      const after = Date.now();
      const listed: ObjectInfo[] = [];
      for await (const o of s.list('data/')) listed.push(o);
      expect(listed.map((o) => o.key)).toEqual(['data/aged']);
      // Store clocks have second resolution (S3) and may differ a little from this one.
      expect(listed[0]!.lastModified).toBeGreaterThanOrEqual(before - 5000);
      expect(listed[0]!.lastModified).toBeLessThanOrEqual(after + 5000);
    });

    it('orders nested keys by bytes, as S3 does', async () => {
      const s = await make();
      for (const k of ['d/a-b', 'd/a/c', 'd/a.x', 'd/ab', 'd/a0']) await s.putIfAbsent(k, bytes(k));
      expect(await collect(s.list('d/'))).toEqual(['d/a-b', 'd/a.x', 'd/a/c', 'd/a0', 'd/ab']);
    });

    it('deletes, and deleting a missing key is not an error', async () => {
      const s = await make();
      await s.putIfAbsent('data/f1', bytes('1'));
      await s.putIfAbsent('data/f2', bytes('2'));
      await s.delete(['data/f1', 'data/missing']);
      expect(await s.get('data/f1')).toBeUndefined();
      expect(await collect(s.list('data/'))).toEqual(['data/f2']);
      expect(await s.putIfAbsent('data/f1', bytes('again'))).toBe(true);
    });

    it('a sweep for leftovers of interrupted writes never takes an object, however late its cut-off', async () => {
      const s = await make();
      const keys = ['log/00000000000000000001', 'checkpoints/00000000000000000001/chunk-000001', 'data/a.parquet'];
      for (const k of keys) await s.putIfAbsent(k, bytes(k));
      await s.replace('log/00000000000000000001', bytes('stub'));
      const later = Date.now() + 24 * 3600 * 1000;
      expect(await s.sweep(later, true)).toEqual([]);
      expect(await s.sweep(later, false)).toEqual([]);
      expect(await collect(s.list(''))).toEqual(keys.slice().sort());
    });

    it('refuses keys that could escape or collide with its own bookkeeping', async () => {
      const s = await make();
      for (const bad of ['', '/abs', 'a//b', '../x', 'a/./b', 'a/.tmp-1', 'a\0b']) {
        await expect(s.putIfAbsent(bad, bytes('x'))).rejects.toSatisfy((e) => isStrataError(e, 'INVALID_ARGUMENT'));
      }
    });
  });
}
