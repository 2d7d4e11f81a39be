import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../../keys/ids.js';
import type { LogEntry } from '../../../src/log/log-entry.js';
import { appendAll, bodyArb, bytes, entry, expectCorrupt, FLIP_RUNS, type LogSuite, plain, PROPERTY_RUNS, read, rejection } from './common.js';

export function damage({ make }: LogSuite): void {
  describe('damage', () => {
    // The first byte is what a reader checks before anything else (the object layout's format byte), so
    // this damage is caught with or without checksums.
    it('an entry whose first byte is damaged reads as CORRUPT naming it, and the entries before it still read', async () => {
      const h = await make();
      const entries = await appendAll(h.log, 4);
      await h.damage(kvSeq(3), { flip: 0, xor: 0xff });
      expectCorrupt(await rejection(h.log.read(kvSeq(3))), 3);
      const seen: LogEntry[] = [];
      const readForward = async () => {
        for await (const e of h.log.readAfter(kvSeq(0))) seen.push(e);
      };
      const err = await rejection(readForward());
      expectCorrupt(err, 3);
      expect(seen.map(plain)).toEqual(entries.slice(0, 2).map(plain));
    });

    // Cut short with an entry after it (a cut last record is what a crash leaves of an append: the
    // segment layout's torn tail, tested with that layout). Each run on a log of its own, so one damaged
    // entry never stands in the way of the next run's.
    it('an entry cut short anywhere reads as CORRUPT naming it, never as another entry', async () => {
      await fc.assert(
        fc.asyncProperty(bodyArb, fc.nat(), async (body, keep) => {
          const h = await make();
          expect(await h.log.append(entry(1))).toBe(true);
          const e: LogEntry = { seq: kvSeq(2), ...body };
          expect(await h.log.append(e)).toBe(true);
          // Bigger than any entry bodyArb makes, so what follows a cut never passes for its missing bytes.
          const after = { ...entry(3), mutations: [{ type: 'put' as const, key: bytes(8), value: bytes(16 << 10) }] };
          expect(await h.log.append(after)).toBe(true);
          await h.damage(e.seq, { truncate: keep });
          // The bytes that follow a cut can supply the very bytes cut off (a zero where a zero was): then
          // the entry reads as it was written, which is no different answer.
          const got = await h.log.read(e.seq).then(
            (entry) => ({ entry }),
            (error: unknown) => ({ error }),
          );
          if ('error' in got) expectCorrupt(got.error, 2);
          else expect(plain(got.entry!)).toEqual(plain(e));
        }),
        { numRuns: PROPERTY_RUNS },
      );
    });

    // Without checksums (before format 2) a flipped byte inside the MessagePack payload mostly decoded to a
    // different entry (another txn, key or value byte) and once in a while to a raw RangeError.
    it('an entry with any byte flipped reads as CORRUPT naming it, or (if the flip left valid bytes) as the entry unchanged', async () => {
      await fc.assert(
        fc.asyncProperty(bodyArb, fc.nat(), fc.integer({ min: 1, max: 255 }), async (body, at, xor) => {
          // A log of its own each run: a damaged last entry stops a segment log's writers, rightly.
          const h = await make();
          expect(await h.log.append(entry(1))).toBe(true);
          const e: LogEntry = { seq: kvSeq(2), ...body };
          expect(await h.log.append(e)).toBe(true);
          await h.damage(e.seq, { flip: at, xor });
          const got = await h.log.read(e.seq).then(
            (entry) => ({ entry }),
            (error: unknown) => ({ error }),
          );
          if ('error' in got) expectCorrupt(got.error, 2);
          else expect(plain(got.entry!)).toEqual(plain(e));
        }),
        { numRuns: FLIP_RUNS },
      );
    });

    it('an entry stored where another belongs reads as CORRUPT naming the place, not as the other entry', async () => {
      const h = await make();
      const [first] = await appendAll(h.log, 3);
      await h.misplace(kvSeq(1), kvSeq(3));
      expectCorrupt(await rejection(h.log.read(kvSeq(3))), 3);
      expect(plain(await read(h.log, 1))).toEqual(plain(first!));
    });
  });

}
