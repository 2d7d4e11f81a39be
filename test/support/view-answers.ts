// Reads of a view as plain data, and the puts they are made over, for comparing two views that should show
// one state: an overlay against the index that applied the same puts (overlay-view.property.test.ts), an
// index with unlanded batches against one whose batches landed (unlanded.property.test.ts).
import fc from 'fast-check';
import { group } from '../../keys/groups.js';
import { beginOf, encodeKey, type Key, keyPrefix, prefixEnd } from '../../keys/key-codec.js';
import type { Mutation } from '../../keys/mutation.js';
import { Space } from '../../keys/spaces.js';
import { encodeValue } from '../../keys/value-codec.js';
import type { ReadView } from '../../src/kv/read-view.js';

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
export const putArb = fc
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
export async function answers(view: ReadView, probes: { reverse: boolean; limit: number; at: number; useLte: boolean }[]) {
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

export const probeArb = fc.record({ reverse: fc.boolean(), limit: fc.constantFrom(-1, 1, 2, 5), at: fc.integer({ min: 0, max: 21 }), useLte: fc.boolean() });
