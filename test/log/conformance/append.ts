import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../../keys/ids.js';
import type { LogEntry } from '../../../src/log/log-entry.js';
import { appendAll, bodyArb, entry, type LogSuite, oneOfSixteenWins, plain, PROPERTY_RUNS, read } from './common.js';

export function append({ make }: LogSuite): void {
  describe('append', () => {
    it('reads back what was appended, every field and every byte, from this handle and another', async () => {
      const h = await make();
      const other = await h.reopen();
      let seq = 0;
      await fc.assert(
        fc.asyncProperty(bodyArb, async (body) => {
          const e: LogEntry = { seq: kvSeq(++seq), ...body };
          expect(await h.log.append(e)).toBe(true);
          expect(plain(await read(h.log, seq))).toEqual(plain(e));
          expect(plain(await read(other, seq))).toEqual(plain(e));
        }),
        { numRuns: PROPERTY_RUNS },
      );
    });

    it('append at a taken sequence number is false and leaves the first entry as it was', async () => {
      const h = await make();
      const [first] = await appendAll(h.log, 1);
      expect(await h.log.append(entry(1))).toBe(false);
      expect(await (await h.reopen()).append(entry(1))).toBe(false);
      expect(plain(await read(h.log, 1))).toEqual(plain(first!));
    });

    oneOfSixteenWins(make, 'append');
  });
}
