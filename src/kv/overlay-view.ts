// The state a set of puts would leave, before they are in the index: a group commit plans its later members
// on the state its earlier members leave, and one log entry then carries them all. Only puts: a commit's plan
// never deletes (deleting is excision's, and excision is never grouped).
import { type Group, groupPrefix } from '../../keys/groups.js';
import type { KvSeq, SnapshotId } from '../../keys/ids.js';
import { type Key, keyId, prefixEnd } from '../../keys/key-codec.js';
import type { Mutation } from '../../keys/mutation.js';
import { decodeValue } from '../../keys/value-codec.js';
import { decodeVersion, type StoredVersion } from '../../keys/versions.js';
import type { Range, ReadView, StateValueOptions } from './read-view.js';

type Entry = [Key, Uint8Array];

export class OverlayView implements ReadView {
  readonly seq: KvSeq;
  /** The puts in key order. */
  private readonly sorted: readonly Entry[];

  private constructor(
    /** An index view, never another overlay: stacking flattens. */
    private readonly base: ReadView,
    /** The puts by keyId. */
    private readonly puts: ReadonlyMap<string, Entry>,
  ) {
    this.seq = base.seq;
    this.sorted = [...puts.values()].sort((a, b) => Buffer.compare(a[0], b[0]));
  }

  /** `view` with `mutations` applied on top (later puts of one key win). */
  static over(view: ReadView, mutations: readonly Mutation[]): OverlayView {
    const base = view instanceof OverlayView ? view.base : view;
    // Stacking copies the puts as they are keyed: an earlier member's keys are not keyed again.
    const puts = new Map<string, Entry>(view instanceof OverlayView ? view.puts : []);
    for (const m of mutations) {
      if (m.type !== 'put') throw new Error('an overlay holds puts only: a commit plan never deletes');
      puts.set(keyId(m.key), [m.key, m.value]);
    }
    return new OverlayView(base, puts);
  }

  /** The puts in [gte, lt) or [gte, lte], ascending. */
  private within(range: Pick<Range, 'gte' | 'lt' | 'lte'>): Entry[] {
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

  private under(prefix: Key): Entry[] {
    return this.within({ gte: prefix, lt: prefixEnd(prefix) });
  }

  // The index's timeline knows nothing of the overlay's snapshots; null sends the caller to last() over the
  // time index, which sees both.
  async snapshotAtOrBefore(): Promise<SnapshotId | null> {
    return null;
  }

  async group(g: Group): Promise<readonly StoredVersion[]> {
    const base = await this.base.group(g);
    const extra = this.under(groupPrefix(g));
    if (extra.length === 0) return base;
    const merged: StoredVersion[] = [];
    for await (const batch of mergeBatches([base], extra.map(([k, v]) => decodeVersion(k, v)), (v) => v.key, false)) merged.push(...batch);
    return merged;
  }

  prefetch(gs: readonly Group[]): Promise<void> {
    return this.base.prefetch(gs);
  }

  async *versionBatches(g: Group, end?: Key): AsyncGenerator<readonly StoredVersion[]> {
    const prefix = groupPrefix(g);
    const extra = this.within({ gte: prefix, lt: end ?? prefixEnd(prefix) });
    if (extra.length === 0) {
      yield* this.base.versionBatches(g, end);
      return;
    }
    yield* mergeBatches(this.base.versionBatches(g, end), extra.map(([k, v]) => decodeVersion(k, v)), (v) => v.key, false);
  }

  // The cache holds index states only: a group the overlay touches must be merged, so it is not "cached".
  cached(g: Group): readonly StoredVersion[] | undefined {
    return this.under(groupPrefix(g)).length > 0 ? undefined : this.base.cached(g);
  }

  offer(): void {}

  async getImmutable<T>(key: Key): Promise<T | undefined> {
    const bytes = this.puts.get(keyId(key))?.[1];
    return bytes === undefined ? this.base.getImmutable<T>(key) : Object.freeze(decodeValue<T>(key, bytes));
  }

  async stateValue<T>(key: Key, opts?: StateValueOptions): Promise<T | undefined> {
    const bytes = this.puts.get(keyId(key))?.[1];
    return bytes === undefined ? this.base.stateValue<T>(key, opts) : Object.freeze(decodeValue<T>(key, bytes));
  }

  async get(key: Key): Promise<Uint8Array | undefined> {
    return this.puts.get(keyId(key))?.[1] ?? this.base.get(key);
  }

  async *scan(range: Range): AsyncGenerator<Entry> {
    for await (const batch of this.scanBatches(range)) yield* batch;
  }

  async *scanBatches(range: Range): AsyncGenerator<Entry[]> {
    const extra = this.within(range);
    if (range.reverse) extra.reverse();
    let left = range.limit === undefined || range.limit < 0 ? Infinity : range.limit;
    if (left === 0) return;
    for await (const batch of mergeBatches(this.base.scanBatches(range), extra, (e) => e[0], range.reverse === true)) {
      const out = batch.length > left ? batch.slice(0, left) : batch;
      yield out;
      left -= out.length;
      if (left === 0) return;
    }
  }

  async getMany(keys: readonly Key[]): Promise<(Uint8Array | undefined)[]> {
    const out = keys.map((k) => this.puts.get(keyId(k))?.[1]);
    const missing = out.flatMap((v, i) => (v === undefined ? [i] : []));
    const fromBase = await this.base.getMany(missing.map((i) => keys[i]!));
    missing.forEach((i, j) => (out[i] = fromBase[j]));
    return out;
  }

  async anyUnder(prefixes: readonly Key[], accept: (key: Key) => boolean): Promise<boolean[]> {
    const found = await this.base.anyUnder(prefixes, accept);
    return found.map((hit, i) => hit || this.under(prefixes[i]!).some(([k]) => accept(k)));
  }

  async last(gte: Key, lte: Key): Promise<Entry | undefined> {
    const fromBase = await this.base.last(gte, lte);
    const fromOverlay = this.within({ gte, lte }).at(-1);
    if (fromOverlay === undefined) return fromBase;
    return fromBase !== undefined && Buffer.compare(fromBase[0], fromOverlay[0]) > 0 ? fromBase : fromOverlay;
  }

  /** The base view belongs to whoever opened it. */
  async close(): Promise<void> {}
}

/**
 * Merges `extra` (sorted in the same direction, each replacing an equal key) into a sorted stream of
 * batches, batch by batch, so the stream's memory bound holds.
 */
async function* mergeBatches<T>(
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
