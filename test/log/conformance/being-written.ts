import { describe, expect, it } from 'vitest';
import { type KvSeq, kvSeq } from '../../../keys/ids.js';
import { appendAll, entry, type LogHarness, type LogSuite } from './common.js';

function holdLook(h: LogHarness, seq: KvSeq): ReturnType<NonNullable<LogHarness['holdLook']>> {
  if (h.holdLook === undefined) throw new Error('a layout whose entries are found by name gives its harness holdLook');
  return h.holdLook(seq);
}

/** Only where entries are found by name: a reader can see an entry missing, and a later one there, while both are being written. */
export function beingWritten({ make }: LogSuite): void {
  describe('an entry being written', () => {
    it('an entry still being written when a reader looks is not a gap: the reader finds it on a second look', async () => {
      const h = await make();
      await appendAll(h.log, 2);
      // The reader finds 3 missing and is held there while a writer appends 3 and then 4 (a writer of 4 read
      // 3 first). Let go, it finds 4 there and 3, a moment ago missing, there on its second look.
      const reader = await holdLook(h, kvSeq(3));
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

    it('a head that finds an entry missing and the one after it there looks again: an entry still being written is not a gap', async () => {
      const h = await make();
      await appendAll(h.log, 2);
      // head(2) probes 3 and 4 at once: 3 is found missing and held; the probe of 4 waits, and finds 4 there
      // once a writer has appended 3 and 4. A second look at 3 finds it.
      const reader = await holdLook(h, kvSeq(3));
      const head = reader.log.head(kvSeq(2));
      await reader.looked;
      const writer = await h.reopen();
      expect(await writer.append(entry(3))).toBe(true);
      expect(await writer.append(entry(4))).toBe(true);
      reader.release();
      expect(await head).toBe(4);
    });
  });
}
