import { describe, expect, it } from 'vitest';
import { bytes, collect, type StoreSuite } from './common.js';

export function sweep({ make }: StoreSuite): void {
  describe('sweep', () => {
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
  });
}
