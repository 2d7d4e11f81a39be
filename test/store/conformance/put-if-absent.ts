import { describe, expect, it } from 'vitest';
import { bytes, type StoreSuite, text } from './common.js';

export function putIfAbsent({ make }: StoreSuite): void {
  describe('putIfAbsent', () => {
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
  });
}
