// The conformance suite every commit-log layout runs (as every ObjectStore runs test/store/conformance.ts):
// src/log/commit-log.ts is the contract, and a layout that fails here is not a log Strata can stand on. The
// suite reaches the log only through CommitLog; what the interface cannot do (damage stored bytes, open the
// log again as another process would) the layout's harness does.
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type KvSeq, kvSeq, snapshotId } from '../../keys/ids.js';
import type { Mutation } from '../../keys/mutation.js';
import { isStrataError } from '../../src/errors.js';
import type { CheckpointManifest, Checkpoints } from '../../src/log/checkpoint.js';
import type { CommitLog } from '../../src/log/commit-log.js';
import type { EntryKind, LogEntry } from '../../src/log/log-entry.js';
import { propertyRuns } from '../support/property-runs.js';

/**
 * How stored bytes go bad. Positions are taken modulo the length of what stores the entry, so any number
 * names a position and a property test needs no knowledge of the layout's encoding.
 */
export type Damage =
  /** XOR the byte at `flip` with `xor` (1..255). */
  | { flip: number; xor: number }
  /** Keep only the first `truncate` bytes: a write cut short. */
  | { truncate: number };

/** One empty log and the hooks the CommitLog interface has no way to express. */
export interface LogHarness {
  log: CommitLog;
  /** Another independent handle on the same stored log, as another writer process would open it. */
  reopen(): Promise<CommitLog>;
  /** Damages what stores entry `seq` in place (the entry must exist). */
  damage(seq: KvSeq, how: Damage): Promise<void>;
  /** Removes what stores entry `seq`, leaving its neighbours. */
  remove(seq: KvSeq): Promise<void>;
  /** Stores entry `from`'s bytes, unchanged, as entry `to`: a misfiled write. */
  misplace(from: KvSeq, to: KvSeq): Promise<void>;
  /** Leaves checkpoint `seq` as a writer that stopped before its last step would: present but incomplete. */
  interruptCheckpoint(seq: KvSeq): Promise<void>;
  /**
   * Whether a reader sees a missing entry as a gap without being told to look further (segments: the entry
   * after it is the next record), or takes it for the end of the log until one past it appears (objects:
   * only the next name is probed, unless `thorough`).
   */
  gapsSeenAtOnce: boolean;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** An entry as plain data with bytes as hex: two are equal exactly when the entries are, byte for byte. */
function plain(e: LogEntry) {
  return {
    ...e,
    snapshots: [...e.snapshots],
    mutations: e.mutations.map((m) =>
      m.type === 'put' ? { type: m.type, key: hex(m.key), value: hex(m.value) } : { type: m.type, key: hex(m.key) },
    ),
  };
}

const bytes = (n: number) => new Uint8Array(randomBytes(n));

/** A commit entry as a writer builds one: its own txn, a couple of puts and a delete of arbitrary bytes. */
function entry(seq: number): LogEntry {
  return {
    seq: kvSeq(seq),
    kind: 'commit',
    epoch: 1,
    snapshots: [snapshotId(seq)],
    txn: randomUUID(),
    prev: randomUUID(),
    mutations: [
      { type: 'put', key: bytes(12), value: bytes(40) },
      { type: 'put', key: Uint8Array.of(0, 0xff, 0), value: new Uint8Array(0) },
      { type: 'del', key: bytes(7) },
    ],
  };
}

// Keys are never empty (every key starts with its space byte); values may be.
const keyArb = fc.uint8Array({ minLength: 1, maxLength: 64 });
const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ type: fc.constant('put' as const), key: keyArb, value: fc.uint8Array({ maxLength: 512 }) }),
  fc.record({ type: fc.constant('del' as const), key: keyArb }),
);
/** Everything of an entry but its sequence number, which each run assigns. Zero, one and several snapshots encode differently. */
const bodyArb = fc.record({
  kind: fc.constantFrom<EntryKind>('init', 'commit', 'system'),
  epoch: fc.maxSafeNat(),
  snapshots: fc.uniqueArray(fc.maxSafeNat(), { maxLength: 4 }).map((ids) => ids.sort((a, b) => a - b).map(snapshotId)),
  txn: fc.uuid(),
  prev: fc.oneof(fc.constant(''), fc.uuid()),
  mutations: fc.array(mutationArb, { maxLength: 8 }),
});

/** The newest usable checkpoint, as bootstrap would take it first. */
async function newest(checkpoints: Checkpoints, usable: (seq: KvSeq) => Promise<boolean>): Promise<CheckpointManifest | undefined> {
  for await (const m of checkpoints.newestFirst(usable)) return m;
  return undefined;
}

async function appendAll(log: CommitLog, n: number): Promise<LogEntry[]> {
  const entries = Array.from({ length: n }, (_, i) => entry(i + 1));
  for (const e of entries) expect(await log.append(e)).toBe(true);
  return entries;
}

async function collect(entries: AsyncIterable<LogEntry>): Promise<LogEntry[]> {
  const out: LogEntry[] = [];
  for await (const e of entries) out.push(e);
  return out;
}

async function read(log: CommitLog, seq: number): Promise<LogEntry> {
  const e = await log.read(kvSeq(seq));
  expect(e, `entry ${seq}`).toBeDefined();
  return e!;
}

/** What `p` rejects with, or undefined if it resolves. */
const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

/** CORRUPT, and the message names entry `seq` (padded or not, but not as part of another number). */
function expectCorrupt(e: unknown, seq: number): void {
  expect(isStrataError(e, 'CORRUPT'), `expected CORRUPT, got ${String(e)}`).toBe(true);
  expect((e as Error).message).toMatch(new RegExp(`(?<!\\d)0*${seq}(?!\\d)`));
}

function expectStub(e: LogEntry, seq: number): void {
  expect({ seq: e.seq, kind: e.kind, mutations: e.mutations }).toEqual({ seq, kind: 'stub', mutations: [] });
}

async function* batches<T>(items: T[], size: number): AsyncGenerator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/** `n` pairs in key byte order (a big-endian index leads each key), values of 1–3 KiB. */
function pairs(n: number): [Uint8Array, Uint8Array][] {
  return Array.from({ length: n }, (_, i) => {
    const key = new Uint8Array(4 + (i % 9));
    new DataView(key.buffer).setUint32(0, i);
    key.set(bytes(i % 9), 4);
    return [key, bytes(1024 + ((i * 7919) % 2048))];
  });
}

async function readCheckpoint(log: CommitLog, m: CheckpointManifest): Promise<string[][]> {
  const out: string[][] = [];
  for await (const chunk of log.checkpoints.read(m)) for (const [k, v] of chunk) out.push([hex(k), hex(v)]);
  return out;
}

const NOW = Date.UTC(2026, 0, 1);
const all = async () => true;

/** `make` returns a harness on an empty log, private to the calling test. */
export function commitLogConformance(name: string, make: () => Promise<LogHarness>): void {
  describe(`CommitLog conformance: ${name}`, () => {
    describe('append and read', () => {
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
          { numRuns: propertyRuns(100) },
        );
      });

      it('read of an entry the log does not have is undefined', async () => {
        const h = await make();
        expect(await h.log.read(kvSeq(1))).toBeUndefined();
        await appendAll(h.log, 2);
        expect(await h.log.read(kvSeq(3))).toBeUndefined();
        expect(await h.log.read(kvSeq(1_000_000))).toBeUndefined();
      });

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

      it('append at a taken sequence number is false and leaves the first entry as it was', async () => {
        const h = await make();
        const [first] = await appendAll(h.log, 1);
        expect(await h.log.append(entry(1))).toBe(false);
        expect(await (await h.reopen()).append(entry(1))).toBe(false);
        expect(plain(await read(h.log, 1))).toEqual(plain(first!));
      });
    });

    describe('writers racing for one entry', () => {
      for (const op of ['append', 'appendOwn'] as const) {
        it(`exactly one of 16 concurrent ${op} calls from 16 independent writers wins, and the stored entry is the winner's`, async () => {
          const h = await make();
          const writers = await Promise.all(Array.from({ length: 16 }, () => h.reopen()));
          const rounds = 5;
          for (let seq = 1; seq <= rounds; seq++) {
            const entries = writers.map(() => entry(seq));
            const won = await Promise.all(writers.map((w, i) => w[op](entries[i]!)));
            const winners = won.flatMap((w, i) => (w ? [i] : []));
            expect(winners, `round ${seq}`).toHaveLength(1);
            expect(plain(await read(h.log, seq))).toEqual(plain(entries[winners[0]!]!));
          }
          expect(await h.log.head(kvSeq(0))).toBe(rounds);
        });
      }
    });

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
    });

    describe('reading forward', () => {
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
          { numRuns: propertyRuns(100) },
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
          { numRuns: propertyRuns(100) },
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

    describe('missing entries', () => {
      // Writers never leave gaps (an entry is written only by one who read the one before), so a missing
      // entry with a later one present is damage: CORRUPT naming it, never the end of the log.
      it('a removed middle entry is CORRUPT naming it, reading forward and asking for the head; the entries before it still read', async () => {
        const h = await make();
        const entries = await appendAll(h.log, 5);
        await h.remove(kvSeq(3));
        // Asked for alone, it is not there (objects) or a later entry stands in its place (segments).
        const alone = await h.log.read(kvSeq(3)).catch((e: unknown) => e);
        if (alone !== undefined) expectCorrupt(alone, 3);
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
        if (h.gapsSeenAtOnce) {
          expectCorrupt(await readAll(false), 3);
          return;
        }
        // Without a listing only the next entry is probed: entries 3 and 4 both gone read as the end, and
        // it takes a writer's append at 3 (then its successor's missing 4 beside an existing 5) to show it.
        expect(await readAll(false)).toBeUndefined();
        expect(await h.log.append(entry(3))).toBe(true);
        expectCorrupt(await readAll(false), 4);
      });

      it('an entry still being written when a reader looks is not a gap: the reader finds it on a second look', async () => {
        const h = await make();
        await appendAll(h.log, 2);
        // A reader that has seen 3 missing, then 4 present, looks at 3 again: a writer of 4 read 3 first.
        const late = entry(3);
        const other = await h.reopen();
        const reads = (async () => {
          const out: number[] = [];
          for await (const e of h.log.readAfter(kvSeq(0))) out.push(e.seq);
          return out;
        })();
        await other.append(late);
        await other.append(entry(4));
        const seqs = await reads;
        expect(seqs.slice(0, 2)).toEqual([1, 2]);
        expect([[1, 2], [1, 2, 3], [1, 2, 3, 4]]).toContainEqual(seqs);
      });
    });

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

    describe('checkpoints', () => {
      it('an empty log has none', async () => {
        const h = await make();
        expect(await h.log.checkpoints.list()).toEqual([]);
        expect(await newest(h.log.checkpoints, all)).toBeUndefined();
      });

      it('a written checkpoint is listed complete, is the newest, and reads back its pairs in order, byte for byte', async () => {
        const h = await make();
        // Past 4 MiB, so the pairs cannot all travel in one piece in a layout that splits them.
        const written = pairs(3000);
        const manifest = await h.log.checkpoints.write(kvSeq(40), 'txn-40', batches(written, 250), NOW);
        expect(manifest).toMatchObject({ seq: 40, keys: 3000, createdAt: NOW });
        const other = await h.reopen();
        expect((await other.checkpoints.list()).map((c) => ({ seq: c.seq, complete: c.complete }))).toEqual([{ seq: 40, complete: true }]);
        const found = await newest(other.checkpoints, all);
        expect(found).toEqual(manifest);
        expect(found!.txn).toBe('txn-40');
        expect(await readCheckpoint(other, found!)).toEqual(written.map(([k, v]) => [hex(k), hex(v)]));
      });

      it('an incomplete checkpoint is listed as such and is never the newest', async () => {
        const h = await make();
        const older = await h.log.checkpoints.write(kvSeq(10), 'txn-10', batches(pairs(3), 2), NOW);
        await h.log.checkpoints.write(kvSeq(20), 'txn-20', batches(pairs(3), 2), NOW);
        await h.interruptCheckpoint(kvSeq(20));
        expect((await h.log.checkpoints.list()).map((c) => ({ seq: c.seq, complete: c.complete }))).toEqual([
          { seq: 10, complete: true },
          { seq: 20, complete: false },
        ]);
        expect(await newest(h.log.checkpoints, all)).toEqual(older);
        expect(await newest(h.log.checkpoints, async (seq) => seq >= 20)).toBeUndefined();
      });

      it('newest skips the checkpoints the predicate refuses', async () => {
        const h = await make();
        const written = new Map<number, CheckpointManifest>();
        for (const seq of [10, 20, 30]) written.set(seq, await h.log.checkpoints.write(kvSeq(seq), `txn-${seq}`, batches(pairs(3), 2), NOW + seq));
        expect(await newest(h.log.checkpoints, all)).toEqual(written.get(30));
        expect(await newest(h.log.checkpoints, async (seq) => seq <= 20)).toEqual(written.get(20));
        expect(await newest(h.log.checkpoints, async (seq) => seq !== 20 && seq !== 30)).toEqual(written.get(10));
        expect(await newest(h.log.checkpoints, async () => false)).toBeUndefined();
      });

      it('delete removes one checkpoint, complete or not, and leaves the others readable', async () => {
        const h = await make();
        const contents = pairs(5);
        const kept = await h.log.checkpoints.write(kvSeq(10), 'txn-10', batches(contents, 2), NOW);
        for (const seq of [20, 30]) await h.log.checkpoints.write(kvSeq(seq), `txn-${seq}`, batches(pairs(3), 2), NOW);
        await h.interruptCheckpoint(kvSeq(30));
        const [, complete, incomplete] = await h.log.checkpoints.list();
        await h.log.checkpoints.delete(complete!);
        await h.log.checkpoints.delete(incomplete!);
        expect((await h.log.checkpoints.list()).map((c) => c.seq)).toEqual([10]);
        expect(await newest(h.log.checkpoints, all)).toEqual(kept);
        expect(await readCheckpoint(h.log, kept)).toEqual(contents.map(([k, v]) => [hex(k), hex(v)]));
      });
    });
  });
}
