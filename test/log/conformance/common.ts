// What the modules of the commit-log conformance suite share: the log under test and the hooks its layout's
// harness gives for what the CommitLog interface cannot do, what the layout says it supports, how many cases
// a property runs, and the entries, pairs and checks every module builds its tests from.
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { type KvSeq, kvSeq, snapshotId } from '../../../keys/ids.js';
import type { Mutation } from '../../../keys/mutation.js';
import { isStrataError } from '../../../src/errors.js';
import type { CheckpointManifest, Checkpoints } from '../../../src/log/checkpoint.js';
import type { CommitLog } from '../../../src/log/commit-log.js';
import type { EntryKind, LogEntry } from '../../../src/log/log-entry.js';
import { propertyRuns } from '../../support/property-runs.js';

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
   * Where entries are found by name: another handle on the log whose first look at entry `seq` finds what
   * it finds and then waits, its answer held, until `release()`; any look it begins after that one waits
   * until then before it looks. `looked` resolves once it has looked at `seq`. A test lets a writer take its
   * step in between, forcing the race a reader must survive.
   */
  holdLook?(seq: KvSeq): Promise<{ log: CommitLog; looked: Promise<void>; release(): void }>;
}

/** What a layout does beyond what every log must (abstract-level's `supports` manifest). */
export interface LogSupports {
  /**
   * Each entry is an object of the store found by its own name (objects), not a record following the one
   * before it (segments). A reader then probes only the next name, unless `thorough`: it takes a missing
   * entry for the end of the log until one past it appears, and reads an entry removed from the middle as
   * missing, not as damage. And an entry still being written can be missing to one look and there at the
   * next, while a later one exists: the harness gives `holdLook` to force that.
   */
  entriesByName: boolean;
}

export interface LogSuite {
  /** A harness on an empty log, private to the calling test. */
  make: () => Promise<LogHarness>;
  supports: LogSupports;
}

/** Cases each property test of the suite runs. */
export const PROPERTY_RUNS = propertyRuns(100);
/** Cases the byte-flip property runs: a flip can land anywhere in the entry, each place caught its own way. */
export const FLIP_RUNS = propertyRuns(100);

export const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** An entry as plain data with bytes as hex: two are equal exactly when the entries are, byte for byte. */
export function plain(e: LogEntry) {
  return {
    ...e,
    snapshots: [...e.snapshots],
    mutations: e.mutations.map((m) =>
      m.type === 'put' ? { type: m.type, key: hex(m.key), value: hex(m.value) } : { type: m.type, key: hex(m.key) },
    ),
  };
}

export const bytes = (n: number) => new Uint8Array(randomBytes(n));

/** A commit entry as a writer builds one: its own txn, a couple of puts and a delete of arbitrary bytes. */
export function entry(seq: number): LogEntry {
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
export const bodyArb = fc.record({
  kind: fc.constantFrom<EntryKind>('init', 'commit', 'system'),
  epoch: fc.maxSafeNat(),
  snapshots: fc.uniqueArray(fc.maxSafeNat(), { maxLength: 4 }).map((ids) => ids.sort((a, b) => a - b).map(snapshotId)),
  txn: fc.uuid(),
  prev: fc.oneof(fc.constant(''), fc.uuid()),
  mutations: fc.array(mutationArb, { maxLength: 8 }),
});

/** The newest usable checkpoint, as bootstrap would take it first. */
export async function newest(checkpoints: Checkpoints, usable: (seq: KvSeq) => Promise<boolean>): Promise<CheckpointManifest | undefined> {
  for await (const m of checkpoints.newestFirst(usable)) return m;
  return undefined;
}

export async function appendAll(log: CommitLog, n: number): Promise<LogEntry[]> {
  const entries = Array.from({ length: n }, (_, i) => entry(i + 1));
  for (const e of entries) expect(await log.append(e)).toBe(true);
  return entries;
}

export async function collect(entries: AsyncIterable<LogEntry>): Promise<LogEntry[]> {
  const out: LogEntry[] = [];
  for await (const e of entries) out.push(e);
  return out;
}

export async function read(log: CommitLog, seq: number): Promise<LogEntry> {
  const e = await log.read(kvSeq(seq));
  expect(e, `entry ${seq}`).toBeDefined();
  return e!;
}

/** What `p` rejects with, or undefined if it resolves. */
export const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

/** CORRUPT, and the message names entry `seq` (padded or not, but not as part of another number). */
export function expectCorrupt(e: unknown, seq: number): void {
  expect(isStrataError(e, 'CORRUPT'), `expected CORRUPT, got ${String(e)}`).toBe(true);
  expect((e as Error).message).toMatch(new RegExp(`(?<!\\d)0*${seq}(?!\\d)`));
}

export function expectStub(e: LogEntry, seq: number): void {
  expect({ seq: e.seq, kind: e.kind, mutations: e.mutations }).toEqual({ seq, kind: 'stub', mutations: [] });
}

export async function* batches<T>(items: T[], size: number): AsyncGenerator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/** `n` pairs in key byte order (a big-endian index leads each key), values of 1–3 KiB. */
export function pairs(n: number): [Uint8Array, Uint8Array][] {
  return Array.from({ length: n }, (_, i) => {
    const key = new Uint8Array(4 + (i % 9));
    new DataView(key.buffer).setUint32(0, i);
    key.set(bytes(i % 9), 4);
    return [key, bytes(1024 + ((i * 7919) % 2048))];
  });
}

export async function readCheckpoint(log: CommitLog, m: CheckpointManifest): Promise<string[][]> {
  const out: string[][] = [];
  for await (const chunk of log.checkpoints.read(m)) for (const [k, v] of chunk) out.push([hex(k), hex(v)]);
  return out;
}

export const NOW = Date.UTC(2026, 0, 1);
export const all = async () => true;

/** The race for one entry: exactly one of 16 independent writers wins each of 5 rounds, by `op`. */
export function oneOfSixteenWins(make: LogSuite['make'], op: 'append' | 'appendOwn'): void {
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
