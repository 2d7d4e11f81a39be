import { describe, expect, it } from 'vitest';
import type { StoreSuite } from './common.js';

export function clock({ make }: StoreSuite): void {
  describe('clock', () => {
    // A catalog checks its own clock against this before it stamps a snapshot's time.
    it('clockNow is undefined until the store has told its time; readClock makes it tell, near this machine\'s clock, never going back', async () => {
      const s = await make();
      expect(s.clockNow()).toBeUndefined();
      const before = Date.now();
      await s.readClock();
      const after = Date.now();
      const first = s.clockNow()!;
      // As for modification times: second resolution (S3), and a clock a little apart from this one.
      expect(first).toBeGreaterThanOrEqual(before - 5000);
      expect(first).toBeLessThanOrEqual(after + 5000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(s.clockNow()!).toBeGreaterThan(first);
    });
  });
}
