// An entry that only puts is applied in memory and its LevelDB batch lands later (src/kv/unlanded.ts). A view
// opened before it lands, and read while it lands, must answer exactly as a view of an index where every
// batch has landed; an entry that deletes waits for them; a batch that fails stops every later read and
// write of the index, and is reported.
import * as path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { encodeKey } from '../../keys/key-codec.js';
import type { Mutation } from '../../keys/mutation.js';
import { Space } from '../../keys/spaces.js';
import { encodeValue } from '../../keys/value-codec.js';
import { isStrataError } from '../../src/errors.js';
import { KvStore } from '../../src/kv/kv-store.js';
import { tempDir } from '../helpers.js';
import { answers, probeArb, putArb } from '../support/view-answers.js';

const stores: KvStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function open(): Promise<KvStore> {
  const kv = await KvStore.open(path.join(await tempDir(), 'index'));
  stores.push(kv);
  return kv;
}

/** An index where entries 1..n landed one by one: the state every view must show. */
async function landedAfter(entries: readonly Mutation[][]): Promise<KvStore> {
  const kv = await open();
  for (const [i, mutations] of entries.entries()) {
    await kv.apply(kvSeq(i + 1), `txn-${i + 1}`, mutations);
    await kv.landed();
  }
  return kv;
}

const delArb = putArb.map((m): Mutation => ({ type: 'del', key: m.key }));
const entryArb = fc.oneof({ weight: 6, arbitrary: fc.array(putArb, { minLength: 1, maxLength: 6 }) }, { weight: 1, arbitrary: fc.array(delArb, { minLength: 1, maxLength: 2 }) });

describe('entries applied before their index batch lands', () => {
  it('views opened at every step, before their batches land, answer as an index whose batches all landed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entryArb, { minLength: 1, maxLength: 12 }), fc.array(probeArb, { minLength: 1, maxLength: 3 }), async (entries, probes) => {
        try {
          const kv = await open();
          for (const [i, mutations] of entries.entries()) {
            await kv.apply(kvSeq(i + 1), `txn-${i + 1}`, mutations);
            const view = await kv.readView();
            const reference = await landedAfter(entries.slice(0, i + 1));
            const expected = await reference.readView();
            try {
              expect(view.seq).toBe(i + 1);
              expect(await answers(view, probes)).toEqual(await answers(expected, probes));
            } finally {
              await Promise.all([view.close(), expected.close()]);
            }
          }
          // Closing waits for the last batches; reopened, the index holds every entry.
          await kv.close();
          stores.splice(stores.indexOf(kv), 1);
        } finally {
          await Promise.all(stores.splice(0).map((s) => s.close()));
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a closed index holds every applied entry: close waits for the batches still in flight', async () => {
    const dir = path.join(await tempDir(), 'index');
    const kv = await KvStore.open(dir);
    const key = (i: number) => encodeKey(Space.Metadata, [`k${i}`]);
    for (let i = 1; i <= 50; i++) await kv.apply(kvSeq(i), `txn-${i}`, [{ type: 'put', key: key(i), value: encodeValue({ value: String(i) }) }]);
    await kv.close();
    const again = await KvStore.open(dir);
    stores.push(again);
    expect(again.latestApplied).toBe(50);
    expect(again.latestAppliedTxn).toBe('txn-50');
    const view = await again.readView();
    expect(await Promise.all([1, 25, 50].map(async (i) => (await view.stateValue<{ value: string }>(key(i)))?.value))).toEqual(['1', '25', '50']);
    await view.close();
  });

  it('a batch that fails is reported once; from then on reads and applies fail with STORE_UNAVAILABLE naming the local index', async () => {
    const kv = await open();
    const failures: Error[] = [];
    kv.onWriteFailure((e) => failures.push(e));
    const put = (i: number): Mutation => ({ type: 'put', key: encodeKey(Space.Metadata, [`k${i}`]), value: encodeValue({ value: String(i) }) });
    await kv.apply(kvSeq(1), 'txn-1', [put(1)]);
    await kv.landed();
    // The disk refuses the next write (the real thing, a full disk, is index-disk-full.test.ts).
    const db = (kv as unknown as { db: { batch: () => unknown } }).db;
    const real = db.batch.bind(db);
    db.batch = () => Object.assign(real() as object, { write: () => Promise.reject(new Error('EIO: i/o error, write')) });
    await kv.apply(kvSeq(2), 'txn-2', [put(2)]);
    await expect(kv.landed()).rejects.toSatisfy((e) => isStrataError(e, 'STORE_UNAVAILABLE') && /log entry 2 to the local index.*EIO/.test(e.message));
    expect(failures).toHaveLength(1);
    await expect(kv.readView()).rejects.toSatisfy((e) => isStrataError(e, 'STORE_UNAVAILABLE'));
    await expect(kv.apply(kvSeq(3), 'txn-3', [put(3)])).rejects.toSatisfy((e) => isStrataError(e, 'STORE_UNAVAILABLE'));
    expect(failures).toHaveLength(1);
  });
});
