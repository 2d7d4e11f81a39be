// Puts that a view shows on top of a frozen LevelDB state: the later members of a group commit
// (overlay-view.ts) and the index's own entries applied but not landed (unlanded.ts). One set of merge rules
// for both: a put replaces an equal key, and a put over a key the state already holds the same way is the
// same entry, so a state that already has some of them reads the same.
import { type Key, keyId, type KeyRange, prefixEnd } from '../../keys/key-codec.js';
import { decodeVersion, type StoredVersion } from '../../keys/versions.js';

/** A key range as views scan it (read-view.ts re-exports it). */
export interface Range extends KeyRange {
  reverse?: boolean;
  limit?: number;
}

export type Entry = [Key, Uint8Array];

export class PutSet {
  private ordered: readonly Entry[] | undefined;

  /**
   * Puts by keyId in layers, oldest first, a later layer winning an equal key. Layers are shared, never
   * merged for a point read: a view is opened per transaction and most make only point reads, so building
   * one map per view cost more than looking in a handful.
   */
  constructor(readonly layers: readonly ReadonlyMap<string, Entry>[]) {}

  /** The puts in key order, merged and sorted when a range is first read. */
  private get sorted(): readonly Entry[] {
    if (this.ordered === undefined) {
      const merged = this.layers.length === 1 ? this.layers[0]! : new Map(this.layers.flatMap((l) => [...l]));
      this.ordered = [...merged.values()].sort((a, b) => Buffer.compare(a[0], b[0]));
    }
    return this.ordered;
  }

  get(key: Key): Uint8Array | undefined {
    const id = keyId(key);
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const hit = this.layers[i]!.get(id);
      if (hit !== undefined) return hit[1];
    }
    return undefined;
  }

  /** The puts in [gte, lt) or [gte, lte], ascending. */
  within(range: Pick<Range, 'gte' | 'lt' | 'lte'>): Entry[] {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (Buffer.compare(this.sorted[mid]![0], range.gte) < 0) lo = mid + 1;
      else hi = mid;
    }
    const out: Entry[] = [];
    for (let i = lo; i < this.sorted.length; i++) {
      const key = this.sorted[i]![0];
      if (range.lt !== undefined && Buffer.compare(key, range.lt) >= 0) break;
      if (range.lte !== undefined && Buffer.compare(key, range.lte) > 0) break;
      out.push(this.sorted[i]!);
    }
    return out;
  }

  under(prefix: Key): Entry[] {
    return this.within({ gte: prefix, lt: prefixEnd(prefix) });
  }

  /** The puts under `prefix` decoded as versions, for merging into a group. */
  versionsUnder(prefix: Key, end?: Key): StoredVersion[] {
    return this.within({ gte: prefix, lt: end ?? prefixEnd(prefix) }).map(([k, v]) => decodeVersion(k, v));
  }

  /** A group's versions as the base has them, with these puts merged in. */
  async mergedVersions(base: readonly StoredVersion[], prefix: Key): Promise<readonly StoredVersion[]> {
    const extra = this.versionsUnder(prefix);
    if (extra.length === 0) return base;
    const merged: StoredVersion[] = [];
    for await (const batch of mergeBatches([base], extra, (v) => v.key, false)) merged.push(...batch);
    return merged;
  }

  /** A range scan of the base (which was asked for the same range and limit), with these puts merged in. */
  async *scanBatches(base: AsyncIterable<Entry[]>, range: Range): AsyncGenerator<Entry[]> {
    const extra = this.within(range);
    if (range.reverse) extra.reverse();
    let left = range.limit === undefined || range.limit < 0 ? Infinity : range.limit;
    if (left === 0) return;
    // The first `limit` merged entries come from the base's first `limit` and the puts.
    for await (const batch of mergeBatches(base, extra, (e) => e[0], range.reverse === true)) {
      const out = batch.length > left ? batch.slice(0, left) : batch;
      yield out;
      left -= out.length;
      if (left === 0) return;
    }
  }

  /** Point reads, from these puts where they have the key and from `base` for the rest. */
  async getMany(keys: readonly Key[], base: (keys: Key[]) => Promise<(Uint8Array | undefined)[]>): Promise<(Uint8Array | undefined)[]> {
    const out = keys.map((k) => this.get(k));
    const missing = out.flatMap((v, i) => (v === undefined ? [i] : []));
    if (missing.length === 0) return out;
    const fromBase = await base(missing.map((i) => keys[i]!));
    missing.forEach((i, j) => (out[i] = fromBase[j]));
    return out;
  }

  /** anyUnder's answer: the base's, or a put under the prefix that `accept` takes. */
  anyUnder(found: boolean[], prefixes: readonly Key[], accept: (key: Key) => boolean): boolean[] {
    return found.map((hit, i) => hit || this.under(prefixes[i]!).some(([k]) => accept(k)));
  }

  /** The greater of the base's last entry in [gte, lte] and these puts' (a put wins an equal key). */
  last(fromBase: Entry | undefined, gte: Key, lte: Key): Entry | undefined {
    const fromPuts = this.within({ gte, lte }).at(-1);
    if (fromPuts === undefined) return fromBase;
    return fromBase !== undefined && Buffer.compare(fromBase[0], fromPuts[0]) > 0 ? fromBase : fromPuts;
  }
}

/**
 * Merges `extra` (sorted in the same direction, each replacing an equal key) into a sorted stream of
 * batches, batch by batch, so the stream's memory bound holds.
 */
export async function* mergeBatches<T>(
  base: AsyncIterable<readonly T[]> | Iterable<readonly T[]>,
  extra: readonly T[],
  keyOf: (item: T) => Key,
  reverse: boolean,
): AsyncGenerator<T[]> {
  const before = (a: Key, b: Key) => (reverse ? Buffer.compare(b, a) : Buffer.compare(a, b));
  let i = 0;
  for await (const batch of base) {
    const out: T[] = [];
    for (const item of batch) {
      const key = keyOf(item);
      while (i < extra.length && before(keyOf(extra[i]!), key) < 0) out.push(extra[i++]!);
      out.push(i < extra.length && before(keyOf(extra[i]!), key) === 0 ? extra[i++]! : item);
    }
    if (out.length > 0) yield out;
  }
  if (i < extra.length) yield extra.slice(i);
}
