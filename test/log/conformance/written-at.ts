import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../../keys/ids.js';
import { appendAll, type LogSuite } from './common.js';

export function writtenAt({ make }: LogSuite): void {
  describe('writtenAt', () => {
    it('says when an entry was written, by the store\'s clock, and nothing for one it does not have', async () => {
      const h = await make();
      const before = Date.now();
      await appendAll(h.log, 2);
      const after = Date.now();
      for (const seq of [1, 2]) {
        const at = await h.log.writtenAt(kvSeq(seq));
        // The store's clock is this machine's here; S3 times have whole seconds.
        expect(at, `entry ${seq}`).toBeGreaterThanOrEqual(before - 1000);
        expect(at, `entry ${seq}`).toBeLessThanOrEqual(after + 1000);
      }
      expect(await h.log.writtenAt(kvSeq(3))).toBeUndefined();
    });
  });
}
