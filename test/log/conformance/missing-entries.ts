import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../../keys/ids.js';
import type { LogEntry } from '../../../src/log/log-entry.js';
import { appendAll, entry, expectCorrupt, type LogSuite, plain } from './common.js';

export function missingEntries({ make, supports }: LogSuite): void {
  describe('missing entries', () => {
    // Writers never leave gaps (an entry is written only by one who read the one before), so a missing
    // entry with a later one present is damage: CORRUPT naming it, never the end of the log.
    it('a removed middle entry is CORRUPT naming it, reading forward and asking for the head; the entries before it still read', async () => {
      const h = await make();
      const entries = await appendAll(h.log, 5);
      await h.remove(kvSeq(3));
      // Asked for alone, it is not there (objects) or a later entry stands in its place (segments).
      const alone = await h.log.read(kvSeq(3)).catch((e: unknown) => e);
      if (supports.entriesByName) expect(alone).toBeUndefined();
      else expectCorrupt(alone, 3);
      const seen: LogEntry[] = [];
      const failed = await (async () => {
        for await (const e of h.log.readAfter(kvSeq(0))) seen.push(e);
      })().catch((e: unknown) => e);
      expectCorrupt(failed, 3);
      expect(seen.map(plain)).toEqual(entries.slice(0, 2).map(plain));
      expectCorrupt(await h.log.head(kvSeq(0)).catch((e: unknown) => e), 3);
      expectCorrupt(await h.log.head(kvSeq(2)).catch((e: unknown) => e), 3);
    });

    it('a gap of several entries is found by a thorough read, and by head and readAfter as soon as one past it is there', async () => {
      const h = await make();
      await appendAll(h.log, 6);
      await h.remove(kvSeq(3));
      await h.remove(kvSeq(4));
      const readAll = (thorough: boolean) =>
        (async () => {
          for await (const _ of h.log.readAfter(kvSeq(0), { thorough })) void _;
        })().catch((e: unknown) => e);
      expectCorrupt(await readAll(true), 3);
      if (!supports.entriesByName) {
        expectCorrupt(await readAll(false), 3);
        return;
      }
      // Without a listing only the next entry is probed: entries 3 and 4 both gone read as the end, and
      // it takes a writer's append at 3 (then its successor's missing 4 beside an existing 5) to show it.
      expect(await readAll(false)).toBeUndefined();
      expect(await h.log.append(entry(3))).toBe(true);
      expectCorrupt(await readAll(false), 4);
    });
  });
}
