import { describe, expect, it } from 'vitest';
import type { StoreSuite } from './common.js';

export function get({ make }: StoreSuite): void {
  describe('get', () => {
    it('get of a missing key is undefined', async () => {
      const s = await make();
      expect(await s.get('nothing/here')).toBeUndefined();
    });

    it('stores empty and binary bodies exactly', async () => {
      const s = await make();
      const binary = Uint8Array.from({ length: 256 }, (_, i) => i);
      await s.putIfAbsent('bin', binary);
      await s.putIfAbsent('empty', new Uint8Array());
      expect(Buffer.from((await s.get('bin'))!)).toEqual(Buffer.from(binary));
      expect((await s.get('empty'))!.length).toBe(0);
    });
  });
}
