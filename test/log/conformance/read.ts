import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../../keys/ids.js';
import { appendAll, type LogSuite } from './common.js';

export function read({ make }: LogSuite): void {
  describe('read', () => {
    it('read of an entry the log does not have is undefined', async () => {
      const h = await make();
      expect(await h.log.read(kvSeq(1))).toBeUndefined();
      await appendAll(h.log, 2);
      expect(await h.log.read(kvSeq(3))).toBeUndefined();
      expect(await h.log.read(kvSeq(1_000_000))).toBeUndefined();
    });
  });
}
