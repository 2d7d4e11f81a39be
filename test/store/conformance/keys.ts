import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../src/errors.js';
import { bytes, type StoreSuite, text } from './common.js';

export function keys({ make }: StoreSuite): void {
  describe('keys', () => {
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

    it('refuses keys that could escape or collide with its own bookkeeping', async () => {
      const s = await make();
      for (const bad of ['', '/abs', 'a//b', '../x', 'a/./b', 'a/.tmp-1', 'a\0b']) {
        await expect(s.putIfAbsent(bad, bytes('x'))).rejects.toSatisfy((e) => isStrataError(e, 'INVALID_ARGUMENT'));
      }
    });
  });
}
