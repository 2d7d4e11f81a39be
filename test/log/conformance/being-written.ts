import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../../keys/ids.js';
import { appendAll, entry, type LogSuite } from './common.js';

/** Only where entries are found by name: a reader can see an entry missing, and a later one there, while both are being written. */
export function beingWritten({ make }: LogSuite): void {
  describe('an entry being written', () => {
    it('an entry still being written when a reader looks is not a gap: the reader finds it on a second look', async () => {
      const h = await make();
      if (h.holdLook === undefined) throw new Error('a layout whose entries are found by name gives its harness holdLook');
      await appendAll(h.log, 2);
      // The reader finds 3 missing and is held there while a writer appends 3 and then 4 (a writer of 4 read
      // 3 first). Let go, it finds 4 there and 3, a moment ago missing, there on its second look.
      const reader = await h.holdLook(kvSeq(3));
      const reads = (async () => {
        const out: number[] = [];
        for await (const e of reader.log.readAfter(kvSeq(0))) out.push(e.seq);
        return out;
      })();
      await reader.looked;
      const writer = await h.reopen();
      expect(await writer.append(entry(3))).toBe(true);
      expect(await writer.append(entry(4))).toBe(true);
      reader.release();
      expect(await reads).toEqual([1, 2, 3, 4]);
    });
  });
}
