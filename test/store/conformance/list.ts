import { describe, expect, it } from 'vitest';
import type { ObjectInfo } from '../../../src/store/object-store.js';
import { bytes, collect, type StoreSuite } from './common.js';

export function list({ make }: StoreSuite): void {
  describe('list', () => {
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

    it('starts after a start key by bytes too, where JavaScript orders strings otherwise (U+FF21 before an emoji)', async () => {
      const s = await make();
      // In UTF-8 'Ａ' (EF BC A1) sorts before '😀' (F0 9F 98 80); as UTF-16 strings, after it (FF21 > D83D).
      for (const k of ['e/Ａb', 'e/😀b']) await s.putIfAbsent(k, bytes(k));
      expect(await collect(s.list('e/'))).toEqual(['e/Ａb', 'e/😀b']);
      expect(await collect(s.list('e/', { startAfter: 'e/Ａ' }))).toEqual(['e/Ａb', 'e/😀b']);
      expect(await collect(s.list('e/', { startAfter: 'e/Ａb' }))).toEqual(['e/😀b']);
    });
  });
}
