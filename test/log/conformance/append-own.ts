import { describe, expect, it } from 'vitest';
import { entry, type LogSuite, oneOfSixteenWins, plain, read } from './common.js';

export function appendOwn({ make }: LogSuite): void {
  describe('appendOwn', () => {
    it('is true for an entry it wrote, and false where another writer owns the entry', async () => {
      const h = await make();
      const mine = entry(1);
      expect(await h.log.appendOwn(mine)).toBe(true);
      expect(plain(await read(h.log, 1))).toEqual(plain(mine));
      const theirs = entry(2);
      expect(await (await h.reopen()).append(theirs)).toBe(true);
      expect(await h.log.appendOwn(entry(2))).toBe(false);
      expect(plain(await read(h.log, 2))).toEqual(plain(theirs));
    });

    oneOfSixteenWins(make, 'appendOwn');
  });
}
