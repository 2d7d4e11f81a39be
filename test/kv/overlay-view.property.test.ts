import * as path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { group } from '../../keys/groups.js';
import { beginOf, encodeKey, type Key, keyPrefix, prefixEnd } from '../../keys/key-codec.js';
import type { Mutation } from '../../keys/mutation.js';
import { Space } from '../../keys/spaces.js';
import { encodeValue } from '../../keys/value-codec.js';
import { KvStore } from '../../src/kv/kv-store.js';
import { OverlayView } from '../../src/kv/overlay-view.js';
import type { ReadView } from '../../src/kv/read-view.js';
import { tempDir } from '../helpers.js';

// An overlay over an index view must answer every read exactly as an index holding both would.

const TABLES = [1, 2, 3];
const NAMES = ['a', 'b', 'c'];

const keyArb = fc.oneof(
  fc.record({ space: fc.constant(Space.Table), fields: fc.tuple(fc.constantFrom(...TABLES)), begin: fc.integer({ min: 1, max: 20 }) }),
  fc.record({
    space: fc.constant(Space.Column),
    fields: fc.tuple(fc.constantFrom(...TABLES), fc.integer({ min: 1, max: 3 })),
    begin: fc.integer({ min: 1, max: 20 }),
  }),
  fc.record({ space: fc.constant(Space.Metadata), fields: fc.tuple(fc.constantFrom(...NAMES)), begin: fc.constant(undefined) }),
);
const putArb = fc
  .tuple(keyArb, fc.integer({ min: 0, max: 1000 }))
  .map(([k, n]): Mutation => ({ type: 'put', key: encodeKey(k.space, k.fields, k.begin), value: encodeValue(k.begin === undefined ? { value: String(n) } : { n, end: null }) }));

const hex = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('hex'));
const pairs = (entries: [Key, Uint8Array][]) => entries.map(([k, v]) => [hex(k), hex(v)]);
const versions = (vs: readonly { key: Key; row: unknown }[]) => vs.map((v) => [hex(v.key), v.row]);

async function collect<T>(it: AsyncIterable<readonly T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const batch of it) out.push(...batch);
  return out;
}

/** Every read the planner, the conflict checks and GC make, as plain data. */
async function answers(view: ReadView, probes: { reverse: boolean; limit: number; at: number; useLte: boolean }[]) {
  const keys = [...TABLES.flatMap((t) => [encodeKey(Space.Table, [t], 5), encodeKey(Space.Column, [t, 1], 3)]), ...NAMES.map((n) => encodeKey(Space.Metadata, [n]))];
  const out: unknown[] = [];
  out.push(await Promise.all(keys.map(async (k) => hex(await view.get(k)))));
  out.push((await view.getMany(keys)).map(hex));
  for (const n of NAMES) out.push(await view.stateValue(encodeKey(Space.Metadata, [n])), await view.getImmutable(encodeKey(Space.Metadata, [n])));
  for (const t of TABLES) {
    out.push(versions(await view.group(group(Space.Table, [t]))));
    out.push(versions(await collect(view.versionBatches(group(Space.Column, [t])))));
    // Versions at or past `end` may or may not come: only those before it are compared.
    const end = keyPrefix(Space.Column, [t, 2]);
    out.push(versions((await collect(view.versionBatches(group(Space.Column, [t]), end))).filter((v) => Buffer.compare(v.key, end) < 0)));
  }
  for (const p of probes) {
    for (const prefix of [keyPrefix(Space.Table), keyPrefix(Space.Column, [p.at % 3 + 1]), keyPrefix(Space.Metadata)]) {
      const end = p.useLte ? { lte: encodeKey(Space.Column, [3, 3], p.at) } : { lt: prefixEnd(prefix) };
      out.push(pairs(await collect(view.scanBatches({ gte: prefix, ...end, reverse: p.reverse, limit: p.limit }))));
    }
    const t = (p.at % 3) + 1;
    const last = await view.last(keyPrefix(Space.Table, [t]), encodeKey(Space.Table, [t], p.at));
    out.push(last && pairs([last]));
  }
  out.push(await view.anyUnder(TABLES.map((t) => keyPrefix(Space.Column, [t])), (k) => beginOf(k) % 2 === 1));
  return out;
}

const stores: KvStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function storeWith(...entries: Mutation[][]): Promise<KvStore> {
  const kv = await KvStore.open(path.join(await tempDir(), 'index'));
  stores.push(kv);
  for (const [i, mutations] of entries.entries()) await kv.apply(kvSeq(i + 1), `txn-${i + 1}`, mutations);
  return kv;
}

describe('OverlayView', () => {
  it('answers every read as the index would after the same puts', async () => {
    const probe = fc.record({ reverse: fc.boolean(), limit: fc.constantFrom(-1, 1, 2, 5), at: fc.integer({ min: 0, max: 21 }), useLte: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(
        fc.array(putArb, { maxLength: 30 }),
        fc.array(fc.array(putArb, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 }),
        fc.array(probe, { minLength: 1, maxLength: 4 }),
        async (base, layers, probes) => {
          const plain = await storeWith(base);
          const applied = await storeWith(base, layers.flat());
          const baseView = await plain.readView();
          const expectedView = await applied.readView();
          try {
            let overlay: ReadView = baseView;
            for (const layer of layers) overlay = OverlayView.over(overlay, layer);
            expect(await answers(overlay, probes)).toEqual(await answers(expectedView, probes));
          } finally {
            await Promise.all([baseView.close(), expectedView.close()]);
            await Promise.all(stores.splice(0).map((s) => s.close()));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses deletes: a commit plan only puts', async () => {
    const kv = await storeWith([]);
    const view = await kv.readView();
    expect(() => OverlayView.over(view, [{ type: 'del', key: encodeKey(Space.Metadata, ['a']) }])).toThrow(/puts only/);
    await view.close();
  });
});
