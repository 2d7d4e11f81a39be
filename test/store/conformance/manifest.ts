import { describe, expect, it } from 'vitest';
import type { StoreSuite } from './common.js';

export function manifest({ make, supports }: StoreSuite): void {
  describe('manifest', () => {
    // A wrapper that drops localRoot turns a directory into a store no segmented log can be kept in.
    it('has a localRoot exactly when it says it supports one', async () => {
      const s = await make();
      expect(s.localRoot !== undefined).toBe(supports.localRoot);
    });
  });
}
