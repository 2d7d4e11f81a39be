// The state a set of puts would leave, before they are in the index: a group commit plans its later members
// on the state its earlier members leave, and one log entry then carries them all. Only puts: a commit's plan
// never deletes (deleting is excision's, and excision is never grouped).
import { type Group, groupPrefix } from '../../keys/groups.js';
import type { KvSeq, SnapshotId } from '../../keys/ids.js';
import { type Key, keyId } from '../../keys/key-codec.js';
import type { Mutation } from '../../keys/mutation.js';
import { decodeValue } from '../../keys/value-codec.js';
import type { StoredVersion } from '../../keys/versions.js';
import { type Entry, mergeBatches, PutSet } from './put-set.js';
import type { Range, ReadView, StateValueOptions } from './read-view.js';

export class OverlayView implements ReadView {
  readonly seq: KvSeq;

  private constructor(
    /** An index view, never another overlay: stacking flattens. */
    private readonly base: ReadView,
    private readonly puts: PutSet,
  ) {
    this.seq = base.seq;
  }

  /** `view` with `mutations` applied on top (later puts of one key win). */
  static over(view: ReadView, mutations: readonly Mutation[]): OverlayView {
    const base = view instanceof OverlayView ? view.base : view;
    const puts = new Map<string, Entry>();
    for (const m of mutations) {
      if (m.type !== 'put') throw new Error('an overlay holds puts only: a commit plan never deletes');
      puts.set(keyId(m.key), [m.key, m.value]);
    }
    // Stacking adds a layer: an earlier member's puts are neither copied nor keyed again.
    return new OverlayView(base, new PutSet([...(view instanceof OverlayView ? view.puts.layers : []), puts]));
  }

  // The index's timeline knows nothing of the overlay's snapshots; null sends the caller to last() over the
  // time index, which sees both.
  async snapshotAtOrBefore(): Promise<SnapshotId | null> {
    return null;
  }

  async group(g: Group): Promise<readonly StoredVersion[]> {
    return this.puts.mergedVersions(await this.base.group(g), groupPrefix(g));
  }

  prefetch(gs: readonly Group[]): Promise<void> {
    return this.base.prefetch(gs);
  }

  async *versionBatches(g: Group, end?: Key): AsyncGenerator<readonly StoredVersion[]> {
    const extra = this.puts.versionsUnder(groupPrefix(g), end);
    if (extra.length === 0) {
      yield* this.base.versionBatches(g, end);
      return;
    }
    yield* mergeBatches(this.base.versionBatches(g, end), extra, (v) => v.key, false);
  }

  // The cache holds index states only: a group the overlay touches must be merged, so it is not "cached".
  cached(g: Group): readonly StoredVersion[] | undefined {
    return this.puts.under(groupPrefix(g)).length > 0 ? undefined : this.base.cached(g);
  }

  // What is read through an overlay holds puts that no index state has yet: none of it is kept.
  offer(): void {}

  readAheadStart(): undefined {
    return undefined;
  }

  offerReadAhead(): void {}

  async getImmutable<T>(key: Key): Promise<T | undefined> {
    const bytes = this.puts.get(key);
    return bytes === undefined ? this.base.getImmutable<T>(key) : decodedOnce<T>(key, bytes);
  }

  async stateValue<T>(key: Key, opts?: StateValueOptions): Promise<T | undefined> {
    const bytes = this.puts.get(key);
    return bytes === undefined ? this.base.stateValue<T>(key, opts) : decodedOnce<T>(key, bytes);
  }

  async get(key: Key): Promise<Uint8Array | undefined> {
    return this.puts.get(key) ?? this.base.get(key);
  }

  async *scan(range: Range): AsyncGenerator<Entry> {
    for await (const batch of this.scanBatches(range)) yield* batch;
  }

  scanBatches(range: Range): AsyncGenerator<Entry[]> {
    return this.puts.scanBatches(this.base.scanBatches(range), range);
  }

  getMany(keys: readonly Key[]): Promise<(Uint8Array | undefined)[]> {
    return this.puts.getMany(keys, (missing) => this.base.getMany(missing));
  }

  async anyUnder(prefixes: readonly Key[], accept: (key: Key) => boolean): Promise<boolean[]> {
    return this.puts.anyUnder(await this.base.anyUnder(prefixes, accept), prefixes, accept);
  }

  async last(gte: Key, lte: Key): Promise<Entry | undefined> {
    return this.puts.last(await this.base.last(gte, lte), gte, lte);
  }

  /** The base view belongs to whoever opened it. */
  async close(): Promise<void> {}
}

/**
 * Values an overlay's puts decode to, by their bytes (never changed once planned). Layers are shared by the
 * overlays stacked on them, so each later member of a group reads the snapshots of the ones before it —
 * the conflict check's changes, their heads — without decoding them again (member k reads k - 1 of them).
 */
const decoded = new WeakMap<Uint8Array, unknown>();

function decodedOnce<T>(key: Key, bytes: Uint8Array): T {
  let value = decoded.get(bytes) as T | undefined;
  if (value === undefined) decoded.set(bytes, (value = Object.freeze(decodeValue<T>(key, bytes))));
  return value;
}
