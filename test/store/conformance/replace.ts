import { describe, expect, it } from 'vitest';
import { bytes, collect, type StoreSuite, text } from './common.js';

export function replace({ make }: StoreSuite): void {
  describe('replace', () => {
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
  });
}
