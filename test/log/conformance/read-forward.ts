import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../../keys/ids.js';
import { appendAll, collect, entry, type LogSuite, plain, read } from './common.js';

/** readAfter and head: how a reader and a writer find the entries after the ones they have. */
export function readForward({ make }: LogSuite): void {
  describe('readAfter and head', () => {
    it('an empty log has head 0 and no entries', async () => {
      const h = await make();
      expect(await h.log.head(kvSeq(0))).toBe(0);
      expect(await collect(h.log.readAfter(kvSeq(0)))).toEqual([]);
    });

    it('readAfter(n) yields the entries after n in order, and head(n) is the newest, from every n', async () => {
      const h = await make();
      const entries = await appendAll(h.log, 6);
      for (let n = 0; n <= 6; n++) {
        expect((await collect(h.log.readAfter(kvSeq(n)))).map(plain)).toEqual(entries.slice(n).map(plain));
        expect(await h.log.head(kvSeq(n))).toBe(6);
      }
    });

    it('a writer that has not seen the newest entries loses at a taken number, reads forward, and appends at the true next one', async () => {
      const h = await make();
      const [first] = await appendAll(h.log, 1);
      const stale = await h.reopen(); // opened when the log ended at 1, idle since
      const newer = [2, 3, 4, 5].map(entry);
      for (const e of newer) expect(await h.log.append(e)).toBe(true);
      expect(await stale.append(entry(2))).toBe(false);
      const caughtUp = await collect(stale.readAfter(kvSeq(1)));
      expect(caughtUp.map(plain)).toEqual(newer.map(plain));
      expect(plain(await read(stale, 1))).toEqual(plain(first!));
      const next = entry(caughtUp.at(-1)!.seq + 1);
      expect(await stale.append(next)).toBe(true);
      expect(plain(await read(h.log, 6))).toEqual(plain(next));
      expect(await h.log.append(entry(6))).toBe(false);
    });
  });
}
