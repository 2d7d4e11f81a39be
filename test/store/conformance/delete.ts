import { describe, expect, it } from 'vitest';
import { bytes, collect, type StoreSuite } from './common.js';

/** `delete` is a reserved word: the module's one export is `del`. */
export function del({ make }: StoreSuite): void {
  describe('delete', () => {
    it('deletes, and deleting a missing key is not an error', async () => {
      const s = await make();
      await s.putIfAbsent('data/f1', bytes('1'));
      await s.putIfAbsent('data/f2', bytes('2'));
      await s.delete(['data/f1', 'data/missing']);
      expect(await s.get('data/f1')).toBeUndefined();
      expect(await collect(s.list('data/'))).toEqual(['data/f2']);
      expect(await s.putIfAbsent('data/f1', bytes('again'))).toBe(true);
    });
  });
}
