// Every decoder of what the index and the store hold, fed random bytes and damaged copies of real ones:
// each either decodes or throws CORRUPT (a StrataError), never another error, never a hang. The real
// bytes come from a catalog that went through every kind of commit and GC.
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { Census } from '../../keys/census.js';
import { decodeKey, type Key, keyToString } from '../../keys/key-codec.js';
import { isIndexBookkeeping } from '../../keys/system.js';
import type { Violation } from '../../keys/violation.js';
import { decodeValue } from '../../keys/value-codec.js';
import { decodeVersion } from '../../keys/versions.js';
import { spaceSpec } from '../../keys/spaces.js';
import { decodeEntry } from '../../src/log/log-entry.js';
import { KvStore } from '../../src/kv/kv-store.js';
import { isStrataError } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { openCatalog, steppingClock, tempDir } from '../helpers.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const seed = process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED), ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}) };

/** Whether a key, or its value, is refused by the decoder its family reads it with. */
function refused(key: Key, value: Uint8Array): boolean {
  try {
    const space = spaceSpec(decodeKey(key).space);
    if (space.category === 'versioned') decodeVersion(key, value);
    else decodeValue(key, value);
    return false;
  } catch {
    return true;
  }
}

/** Runs `decode`; anything it throws must be CORRUPT. */
function decodesOrCorrupt(what: string, decode: () => unknown): void {
  try {
    decode();
  } catch (e) {
    if (!isStrataError(e, 'CORRUPT')) throw new Error(`${what} threw ${(e as Error)?.constructor?.name}: ${String(e)}`, { cause: e });
  }
}

let pairs: [Key, Uint8Array][] = [];
let entries: { key: string; bytes: Uint8Array }[] = [];

beforeAll(async () => {
  const dir = await tempDir();
  // Entries as objects, so every stored entry is a key of its own here (segment records: test/log).
  const c = await openCatalog({ dir, clock: steppingClock(), checkpointEvery: 0, logLayout: 'objects' });
  await c.transaction(async (tx) => {
    await tx.createSchema('s');
    await tx.createTable('s', 't', [{ name: 'a', type: 'int32' }, { name: 'b', type: 'varchar' }]);
    await tx.createView('s', 'v', 'SELECT 1');
    for (let i = 0; i < 5; i++) await tx.addDataFile('s', 't', { path: `t/${i}.parquet`, recordCount: 10, fileSizeBytes: 100 });
  });
  const r = await c.reader();
  const [first] = await r.dataFiles('s', 't');
  await r.close();
  await c.transaction(async (tx) => {
    await tx.addDeleteFile('s', 't', { dataFileId: first!.id, path: 't/0-del.parquet', deleteCount: 1, fileSizeBytes: 10 });
    await tx.renameColumn('s', 't', 'b', 'c');
    await tx.alterColumnType('s', 't', 'a', 'int64');
  });
  await c.createTag('t1', 2);
  await c.transaction((tx) => tx.removeDataFile('s', 't', first!.id));
  await c.advanceRetainFrom({ snapshot: 3 });
  await c.excise();
  const lease = await c.reader({ lease: { ttlMs: 60_000 } });
  await c.checkpoint();
  await lease.close();
  await c.close();
  const kv = await KvStore.open(path.join(dir, 'index'));
  const view = await kv.readView();
  for await (const batch of view.scanBatches({ gte: Uint8Array.of(0), lt: Uint8Array.of(0xff, 0xff) })) pairs.push(...batch);
  await view.close();
  await kv.close();
  const store = new DirectoryStore(path.join(dir, 'store'));
  for await (const o of store.list('')) entries.push({ key: o.key, bytes: Uint8Array.from(await readFile(path.join(dir, 'store', o.key))) });
  pairs = pairs.filter(([k]) => k.length > 0);
  expect(pairs.length).toBeGreaterThan(40);
  expect(entries.some((e) => e.key.startsWith('log/'))).toBe(true);
  expect(entries.some((e) => e.key.startsWith('checkpoints/'))).toBe(true);
});

/** A copy of `bytes` with some bits flipped, bytes cut off or added. */
const damaged = (bytes: Uint8Array) =>
  fc
    .record({
      flips: fc.array(fc.record({ at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }), { maxLength: 4 }),
      cut: fc.option(fc.nat()),
      extra: fc.uint8Array({ maxLength: 16 }),
    })
    .map(({ flips, cut, extra }) => {
      let out = Uint8Array.from(bytes);
      for (const { at, bit } of flips) if (out.length > 0) out[at % out.length]! ^= 1 << bit;
      if (cut !== null && out.length > 0) out = out.subarray(0, cut % out.length);
      return Uint8Array.from([...out, ...extra]);
    });

const somePair = () => fc.nat().map((i) => pairs[i % pairs.length]!);

describe('decoders fed random and damaged bytes: a value or CORRUPT, never anything else', () => {
  it('keys: random bytes, and real keys damaged', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 80 }), (k) => decodesOrCorrupt('decodeKey', () => decodeKey(k))), { numRuns: RUNS * 4, ...seed });
    fc.assert(
      fc.property(somePair().chain(([k]) => damaged(k)), (k) => decodesOrCorrupt('decodeKey', () => decodeKey(k))),
      { numRuns: RUNS * 4, ...seed },
    );
  });

  it('index values: random bytes and damaged real values under real keys, read as their family reads them', () => {
    const decodeAs = (key: Key, value: Uint8Array) => {
      const space = spaceSpec(key[0]!);
      decodesOrCorrupt(`value of ${space.name}`, () => (space.category === 'versioned' ? decodeVersion(key, value) : decodeValue(key, value)));
    };
    fc.assert(fc.property(somePair(), fc.uint8Array({ maxLength: 200 }), ([k], v) => decodeAs(k, v)), { numRuns: RUNS * 4, ...seed });
    fc.assert(
      fc.property(somePair().chain(([k, v]) => damaged(v).map((d) => [k, d] as const)), ([k, v]) => decodeAs(k, v)),
      { numRuns: RUNS * 4, ...seed },
    );
  });

  it("verify's census: the index as written is clean; with one entry damaged, what its decoder refuses is reported", () => {
    const censusOf = (at: number, onKey: boolean, bytes: Uint8Array) => {
      const census = new Census();
      for (const [i, [k, v]] of pairs.entries()) {
        if (i !== at) census.visit(k, v);
        else if (onKey) census.visit(bytes.length > 0 ? bytes : k, v);
        else census.visit(k, bytes);
      }
      return census.finish();
    };
    expect(censusOf(-1, false, new Uint8Array())).toEqual([]);
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.nat().chain((i) => damaged(pairs[i % pairs.length]![1]).map((d) => [i % pairs.length, d] as const)),
        (onKey, [at, bytes]) => {
          const [k, v] = pairs[at]!;
          let violations: Violation[] | undefined;
          decodesOrCorrupt('census', () => (violations = censusOf(at, onKey, bytes)));
          if (violations === undefined) return; // CORRUPT
          const [key, value] = onKey && bytes.length > 0 ? [bytes, v] : [k, onKey ? v : bytes];
          if (Buffer.compare(key, k) === 0 && Buffer.compare(value, v) === 0) expect(violations).toEqual([]);
          // Bookkeeping is the index's own (read as it opens), not catalog state: the census passes it by.
          else if (!isIndexBookkeeping(k) && refused(key, value)) expect(violations.length, `${keyToString(k)} damaged`).toBeGreaterThan(0);
        },
      ),
      { numRuns: RUNS, ...seed },
    );
  });

  it('log entries: random bytes and damaged real entries', () => {
    const logs = entries.filter((e) => e.key.startsWith('log/'));
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (b) => decodesOrCorrupt('decodeEntry', () => decodeEntry('log/x', b))), { numRuns: RUNS * 2, ...seed });
    fc.assert(
      fc.property(fc.nat().chain((i) => damaged(logs[i % logs.length]!.bytes)), (b) => decodesOrCorrupt('decodeEntry', () => decodeEntry('log/x', b))),
      { numRuns: RUNS * 2, ...seed },
    );
  });
});
