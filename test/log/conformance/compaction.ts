import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../../keys/ids.js';
import { isStrataError } from '../../../src/errors.js';
import { appendAll, collect, entry, expectStub, type LogSuite, plain, read } from './common.js';

export function compaction({ make }: LogSuite): void {
  describe('log compaction', () => {
    it('stubs the entries from 2 through `through`, keeps entry 1 and the later ones, and reports how far it got', async () => {
      const h = await make();
      const entries = await appendAll(h.log, 8);
      expect(await h.log.compactedThrough()).toBe(0);
      await h.log.compact(kvSeq(5));
      expect(await h.log.compactedThrough()).toBe(5);
      expect(await (await h.reopen()).compactedThrough()).toBe(5);
      const after = await collect(h.log.readAfter(kvSeq(0)));
      expect(after.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(plain(after[0]!)).toEqual(plain(entries[0]!));
      for (const seq of [2, 3, 4, 5]) expectStub(after[seq - 1]!, seq);
      expect(after.slice(5).map(plain)).toEqual(entries.slice(5).map(plain));
      expect(await h.log.head(kvSeq(0))).toBe(8);
    });

    it('a later compaction continues where the last stopped; compacting as far again, or less, changes nothing', async () => {
      const h = await make();
      const entries = await appendAll(h.log, 8);
      await h.log.compact(kvSeq(3));
      await h.log.compact(kvSeq(6));
      expect(await h.log.compactedThrough()).toBe(6);
      const once = (await collect(h.log.readAfter(kvSeq(0)))).map(plain);
      await h.log.compact(kvSeq(6));
      await h.log.compact(kvSeq(4));
      expect(await h.log.compactedThrough()).toBe(6);
      expect((await collect(h.log.readAfter(kvSeq(0)))).map(plain)).toEqual(once);
      expect(once[0]).toEqual(plain(entries[0]!));
      for (const seq of [2, 3, 4, 5, 6]) expectStub(await read(h.log, seq), seq);
      expect(once.slice(6)).toEqual(entries.slice(6).map(plain));
    });

    it('refuses to compact past the newest entry, which would take numbers no writer has written', async () => {
      const h = await make();
      await appendAll(h.log, 3);
      await expect(h.log.compact(kvSeq(10))).rejects.toSatisfy((e) => isStrataError(e, 'INVALID_ARGUMENT'));
      expect(await h.log.head(kvSeq(0))).toBe(3);
      expect(await h.log.compactedThrough()).toBe(0);
    });

    it('a compacted entry keeps its number taken: no writer can create it again', async () => {
      const h = await make();
      await appendAll(h.log, 4);
      await h.log.compact(kvSeq(3));
      const stale = await h.reopen();
      for (const seq of [2, 3]) {
        expect(await h.log.append(entry(seq))).toBe(false);
        expect(await stale.append(entry(seq))).toBe(false);
        expect(await stale.appendOwn(entry(seq))).toBe(false);
        expectStub(await read(h.log, seq), seq);
      }
    });
  });

}
