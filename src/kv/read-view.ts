// A frozen view of the local index: a frozen LevelDB state (what LevelDB calls a snapshot) plus the kv
// sequence it reflects, read from inside that state. Everything a reader or a transaction sees comes
// through one of these, so two reads of one view can never straddle a write.
import type { Level } from 'level';
import { cachedKind, type Group, groupId, groupPrefix, isImmutablePoint, parentGroup } from '../../keys/groups.js';
import type { KvSeq, SnapshotId } from '../../keys/ids.js';
import { decodeKey, type Key, keyId, prefixEnd, prefixRange } from '../../keys/key-codec.js';
import { decodeValue } from '../../keys/value-codec.js';
import { StrataError } from '../errors.js';
import { decodeVersion, type StoredVersion } from '../../keys/versions.js';
import type { PutSet, Range } from './put-set.js';
import type { SnapshotTimeline } from './snapshot-timeline.js';
import { MAX_CACHED_GROUP, type ReadAheadStart, type VersionCache } from './version-cache.js';

export type Db = Level<Uint8Array, Uint8Array>;
/**
 * What LevelDB calls a snapshot (`db.snapshot()`): the index's bytes frozen at one applied entry. Called a
 * frozen state here, so that "snapshot" only ever means a catalog snapshot (docs/DESIGN.md §1).
 */
export type FrozenState = ReturnType<Db['snapshot']>;

export type { Range } from './put-set.js';

const NO_VERSIONS: readonly StoredVersion[] = Object.freeze([]);

/** Versions read per metadata cache miss: the missing group's whole parent, when it is no larger than this. */
const READ_AHEAD = 16_384;

/**
 * Up to this many keys, getMany reads one by one synchronously: ~0.3 µs a missing key and ~0.9 µs a present
 * one, where one multi-get through the thread pool took 90–640 µs for 100 keys (a one-off loop on this
 * VM, 100 keys of 100,000, in a LevelDB snapshot). So up to ~1 ms of this thread, and then the pool.
 */
const SYNC_GET_MANY = 1024;

/** Entries fetched per native call; large enough to amortise the crossing, small enough to bound memory. */
const SCAN_BATCH = 256;

/**
 * The bytes a native call may gather before it stops short of SCAN_BATCH. classic-level's default (16 KiB)
 * cut a batch of data file rows at ~100 entries: more crossings, and a short batch reads as the last one.
 */
const SCAN_BATCH_BYTES = 1024 * 1024;

/**
 * What readers, transactions, the planner and GC read the catalog through: one frozen state. The index's
 * own views (IndexView) are frozen LevelDB states; a group commit plans later members on an OverlayView
 * (overlay-view.ts), the state after the earlier members, which exists nowhere yet.
 */
export interface ReadView {
  /** The last log entry applied to the index under this view. */
  readonly seq: KvSeq;
  snapshotAtOrBefore(time: number, head: SnapshotId): Promise<SnapshotId | undefined | null>;
  group(g: Group): Promise<readonly StoredVersion[]>;
  /**
   * Reads the groups (cached kinds) that are not in memory in one pass, for group() to answer from: a
   * caller about to resolve thousands of entities (a cascade drop) pays one scan instead of one per entity.
   */
  prefetch(gs: readonly Group[]): Promise<void>;
  versionBatches(g: Group, end?: Key): AsyncGenerator<readonly StoredVersion[]>;
  /** A cached group's versions if the cache holds them for this view's state; never reads the index. */
  cached(g: Group): readonly StoredVersion[] | undefined;
  /** Offers a whole group read another way (e.g. from manifests); kept only as the cache's rules allow. */
  offer(g: Group, versions: readonly StoredVersion[]): void;
  /**
   * Where a read of other groups beside `g`, for the cache, should start — at the first group of its parent
   * or at `g` — or undefined where it should not be made (VersionCache.readAheadStart; always so where reads
   * are not the index's, an overlay).
   */
  readAheadStart(g: Group): ReadAheadStart | undefined;
  /**
   * Offers the whole groups such a read for `g` found, from where it started; `whole`: they are every group
   * under `g`'s parent (nothing cut short or left out), so a group not among them has no versions. `leftOut`:
   * groups it passed over as too large, whose misses read alone from then on.
   */
  offerReadAhead(g: Group, groups: readonly [Group, readonly StoredVersion[]][], from: ReadAheadStart, whole: boolean, leftOut: readonly Group[]): void;
  getImmutable<T>(key: Key): Promise<T | undefined>;
  stateValue<T>(key: Key, opts?: StateValueOptions): Promise<T | undefined>;
  get(key: Key): Promise<Uint8Array | undefined>;
  scan(range: Range): AsyncGenerator<[Key, Uint8Array]>;
  scanBatches(range: Range): AsyncGenerator<[Key, Uint8Array][]>;
  getMany(keys: readonly Key[]): Promise<(Uint8Array | undefined)[]>;
  anyUnder(prefixes: readonly Key[], accept: (key: Key) => boolean): Promise<boolean[]>;
  last(gte: Key, lte: Key): Promise<[Key, Uint8Array] | undefined>;
  close(): Promise<void>;
}

/**
 * What the views opened on one frozen state share: values decoded in it (the head snapshot, retain-from,
 * tags: decoded once per state), the parents read whole from it or being read, and of those the ones read to
 * their end (not cut short at READ_AHEAD) with the groups they hold: in this frozen state, a group under such
 * a parent that is not among them has no versions, with no read needed (a transaction creating thousands of
 * names asks about each one).
 */
export interface StateReads {
  values: Map<string, unknown>;
  parentsRead: Set<string>;
  completeParents: Map<string, ReadonlySet<string>>;
}

/**
 * Runs `read` on a view of the same frozen state in the background, unless the index is closing or the same
 * parent is being read already; whether it started. `stopped` says when the index began closing
 * (KvStore.readBehind).
 */
export type ReadBehind = (parentId: string, read: (view: IndexView, stopped: () => boolean) => Promise<void>) => boolean;

export interface StateValueOptions {
  /**
   * Whether a missing value is remembered for the state too (default true). False for keys a caller names
   * (tags): the names asked for are unbounded, the values that exist are not.
   */
  rememberAbsent?: boolean;
}

export class IndexView implements ReadView {
  private closed = false;
  /** Groups prefetch() read, for this view alone (the cache may refuse them: see VersionCache.offer). */
  private readonly prefetched = new Map<string, readonly StoredVersion[]>();
  /** The cache's generation when this view opened: its groups serve this view until history is removed. */
  private readonly generation: number;

  constructor(
    private readonly db: Db,
    private readonly frozen: FrozenState,
    /**
     * Puts of applied entries whose batches had not landed when the state was frozen (unlanded.ts): the state
     * holds some prefix of them, so every read merges them in — a landed put merged again is the same put.
     */
    private readonly unlanded: PutSet | undefined,
    /** The last log entry whose effects this view contains. */
    readonly seq: KvSeq,
    private readonly cache: VersionCache,
    private readonly timeline: SnapshotTimeline,
    /** What the views of this view's frozen state share (StateReads). */
    private readonly shared: StateReads,
    /** Gives the frozen state back: views of one state share one (see KvStore.readView). */
    private readonly release: () => Promise<void>,
    /** Told when LevelDB reports damage, so the index is not sealed as sound at its close (index-seal.ts). */
    private readonly onDamage: () => void,
    /** Told when the timeline could not answer: it is read for the lookups after this one (KvStore). */
    private readonly timelineMissed: () => void,
    /** Reads a parent whole beside this view's reads (see group()). */
    private readonly readBehind: ReadBehind,
  ) {
    this.generation = cache.generation;
    this.pointOptions = pointReadOptions(frozen);
  }

  private readonly pointOptions: PointReadOptions;

  /**
   * From the in-memory timeline (see snapshot-timeline.ts): the newest snapshot at or before `time` among
   * ids up to `head` (this view's newest); null when the timeline cannot answer and the index must, which
   * has the timeline read in the background for the lookups to come.
   */
  async snapshotAtOrBefore(time: number, head: SnapshotId): Promise<SnapshotId | undefined | null> {
    const found = this.timeline.find(time, head);
    if (found === null) this.timelineMissed();
    return found;
  }

  /**
   * Every version in group `g`, decoded, in key order, as one array: for metadata groups, which are small
   * and read at random. They come from memory when they can (see version-cache.ts); the caller must not
   * modify what it gets.
   */
  async group(g: Group): Promise<readonly StoredVersion[]> {
    const spec = cachedKind(g);
    if (spec === undefined) return (await this.readGroups(g, groupPrefix(g), Infinity)).versions;
    const id = groupId(g);
    const hit = this.cache.get(id, this.generation) ?? this.prefetched.get(id);
    if (hit !== undefined) return hit;
    // Only a miss encodes a key: on a hit that would be most of the lookup's cost.
    const own = groupPrefix(g);
    const parent = parentGroup(g);
    const parentId = groupId(parent);
    const present = this.shared.completeParents.get(parentId);
    if (present !== undefined && !present.has(id)) return NO_VERSIONS;
    if (this.cache.holdsWhole(parentId, this.generation)) return NO_VERSIONS;
    // The miss its kind names (GroupKind.readAheadOn) has the whole parent (every table, every name in the
    // schema, …) read up to READ_AHEAD versions: the neighbours are usually wanted next, and one scan costs far
    // less than one per group. It is read beside this miss, not in its way: every table's columns on 10,000
    // tables took the lookup that asked 0.32–0.43 s, where its own group takes a millisecond. Misses meanwhile
    // read their own groups; once the cache has taken the parent, they come from memory.
    this.assertOpen();
    if (
      spec.readAheadOn !== undefined &&
      !this.shared.parentsRead.has(parentId) &&
      this.cache.shouldReadAhead(parentId, spec.readAheadOn) &&
      this.readBehind(parentId, (view, stopped) => view.readParent(g, parent, parentId, stopped))
    ) {
      this.shared.parentsRead.add(parentId);
    }
    const versions = (await this.readGroups(g, own, Infinity)).versions;
    this.cache.offer(id, versions, this.seq);
    return versions;
  }

  /**
   * Every group under `parent` (up to READ_AHEAD versions), for the cache and for every view of this frozen
   * state: transactions that begin together (a group commit's callers) miss together, and each read the
   * whole parent (8 callers' first commits after 1,000 tables were made: eight reads of every table's rows,
   * 90–117 ms each, side by side). Split into groups as `g` is (any group under the parent is split alike).
   */
  private async readParent(g: Group, parent: Group, parentId: string, stopped: () => boolean): Promise<void> {
    const { groups, truncated } = await this.readGroups(g, groupPrefix(parent), READ_AHEAD, stopped);
    // A read the index's close cut short is neither complete nor wanted.
    if (stopped()) return;
    this.cache.offerParent(parentId, groups, this.seq, !truncated);
    if (!truncated) this.shared.completeParents.set(parentId, new Set(groups.map(([groupName]) => groupName)));
  }

  async prefetch(gs: readonly Group[]): Promise<void> {
    this.assertOpen();
    const wanted = gs
      .filter((g) => cachedKind(g) !== undefined && this.cache.get(groupId(g), this.generation) === undefined && !this.prefetched.has(groupId(g)))
      .map((g) => ({ id: groupId(g), prefix: groupPrefix(g) }))
      .sort((a, b) => Buffer.compare(a.prefix, b.prefix));
    if (wanted.length === 0) return;
    const it = this.guarded(() => this.db.iterator({ gte: wanted[0]!.prefix, lt: prefixEnd(wanted.at(-1)!.prefix), snapshot: this.frozen }));
    try {
      let batch: [Key, Uint8Array][] = [];
      let at = 0;
      let done = false;
      for (const { id, prefix } of wanted) {
        const versions: StoredVersion[] = [];
        // Wanted groups that lie close together are read in passing; one batch of others between two of
        // them, and the iterator seeks instead.
        for (let skipped = 0; ; skipped++) {
          while (at < batch.length && Buffer.compare(batch[at]![0], prefix) < 0) at++;
          while (at < batch.length && startsWith(batch[at]![0], prefix)) versions.push(decodeVersion(...batch[at++]!));
          if (at < batch.length || done) break;
          if (versions.length === 0 && skipped > 0) it.seek(prefix);
          batch = (await it.nextv(SCAN_BATCH)) as [Key, Uint8Array][];
          at = 0;
          done = batch.length === 0;
        }
        const frozen = Object.freeze(this.unlanded === undefined ? versions : await this.unlanded.mergedVersions(versions, prefix));
        this.prefetched.set(id, frozen);
        this.cache.offer(id, frozen, this.seq);
      }
    } catch (e) {
      throw this.damaged(e);
    } finally {
      await it.close();
    }
  }

  /**
   * Every version in group `g`, decoded, in key order, streamed in batches: memory stays bounded however
   * large the group. Versions at or past `end` may be skipped (a caller's hint that nothing there can
   * interest it). A cached group is served from memory; a small group read whole is cached.
   */
  async *versionBatches(g: Group, end?: Key): AsyncGenerator<readonly StoredVersion[]> {
    const id = cachedKind(g) === undefined ? undefined : groupId(g);
    const hit = id === undefined ? undefined : this.cache.get(id, this.generation);
    if (hit !== undefined) {
      yield hit;
      return;
    }
    // Small groups are read whole (past `end`) so they can be cached; once a group proves too large to
    // keep, reading stops at `end`.
    let kept: StoredVersion[] | undefined = id === undefined ? undefined : [];
    for await (const entries of this.scanBatches(prefixRange(groupPrefix(g)))) {
      const batch = entries.map(([key, bytes]) => decodeVersion(key, bytes));
      if (kept !== undefined) kept = kept.length + batch.length <= MAX_CACHED_GROUP ? kept.concat(batch) : undefined;
      const wanted = end === undefined ? batch : batch.filter((v) => Buffer.compare(v.key, end) < 0);
      if (wanted.length > 0) yield wanted;
      if (kept === undefined && wanted.length < batch.length) return;
    }
    if (kept !== undefined) this.cache.offer(id!, kept, this.seq);
  }

  cached(g: Group): readonly StoredVersion[] | undefined {
    if (cachedKind(g) === undefined) return undefined;
    // Under a parent held whole, a group the cache lacks has no versions.
    return this.cache.get(groupId(g), this.generation) ?? (this.cache.holdsWhole(groupId(parentGroup(g)), this.generation) ? NO_VERSIONS : undefined);
  }

  offer(g: Group, versions: readonly StoredVersion[]): void {
    if (cachedKind(g) !== undefined && versions.length <= MAX_CACHED_GROUP) this.cache.offer(groupId(g), versions, this.seq);
  }

  readAheadStart(g: Group): ReadAheadStart | undefined {
    return cachedKind(g) === undefined ? undefined : this.cache.readAheadStart(groupId(g), groupId(parentGroup(g)), this.seq, this.generation);
  }

  offerReadAhead(g: Group, groups: readonly [Group, readonly StoredVersion[]][], from: ReadAheadStart, whole: boolean, leftOut: readonly Group[]): void {
    if (cachedKind(g) === undefined) return;
    const kept = groups.filter(([, versions]) => versions.length <= MAX_CACHED_GROUP);
    this.cache.offerReadAhead(
      groupId(parentGroup(g)),
      kept.map(([x, versions]) => [groupId(x), versions]),
      this.seq,
      from,
      whole && kept.length === groups.length,
      leftOut.map(groupId),
    );
  }

  /**
   * Reads every group under `prefix` (at most `limit` versions, and no more batches once `stopped`) and picks
   * out group `g`: its versions, whether the read was cut short, and every group read completely.
   */
  private async readGroups(g: Group, prefix: Key, limit: number, stopped = () => false) {
    const groups: [string, StoredVersion[]][] = [];
    let read = 0;
    // A batch at a time: a step of an async generator per entry cost more than decoding it (~1 µs each).
    for await (const batch of this.scanBatches({ gte: prefix, lt: prefixEnd(prefix), ...(limit === Infinity ? {} : { limit }) })) {
      if (stopped()) break;
      for (const [key, bytes] of batch) {
        const keyFields = decodeKey(key).fields;
        const id = groupId({ space: g.space, fields: keyFields.slice(0, g.fields.length) });
        if (groups.at(-1)?.[0] !== id) groups.push([id, []]);
        groups.at(-1)![1].push(decodeVersion(key, bytes, keyFields));
        read++;
      }
    }
    const truncated = read >= limit;
    // Hitting the limit may have cut the last group short.
    if (truncated) groups.pop();
    const wanted = groupId(g);
    const own = groups.find(([id]) => id === wanted)?.[1];
    return { versions: own ?? [], truncated, groups };
  }

  /** A decoded value that is written once and never changes (see version-cache.ts), from memory when cached. */
  async getImmutable<T>(key: Key): Promise<T | undefined> {
    const hit = this.cache.getPoint(key);
    if (hit !== undefined) return hit as T;
    const bytes = await this.get(key);
    if (bytes === undefined) return undefined;
    const value = Object.freeze(decodeValue<T>(key, bytes));
    if (isImmutablePoint(key)) this.cache.offerPoint(key, value, this.seq);
    return value;
  }

  /**
   * A value of this view's state (the head snapshot, retain-from, a tag), decoded once per state: every
   * reader opened on one state asks for the same few, and a LevelDB point read costs several µs.
   */
  async stateValue<T>(key: Key, opts: StateValueOptions = {}): Promise<T | undefined> {
    const id = keyId(key);
    if (this.shared.values.has(id)) return this.shared.values.get(id) as T | undefined;
    const bytes = await this.get(key);
    const value = bytes === undefined ? undefined : Object.freeze(decodeValue<T>(key, bytes));
    if (value !== undefined || opts.rememberAbsent !== false) this.shared.values.set(id, value);
    return value;
  }

  /**
   * A point read. Synchronous on purpose: a LevelDB get is microseconds from its cache, while a trip through
   * the thread pool costs tens of microseconds; callers stay async so this may change.
   */
  async get(key: Key): Promise<Uint8Array | undefined> {
    this.assertOpen();
    try {
      return this.unlanded?.get(key) ?? this.db.getSync(key, this.pointOptions) ?? undefined;
    } catch (e) {
      throw this.damaged(e);
    }
  }

  private guarded<T>(open: () => T): T {
    try {
      return open();
    } catch (e) {
      throw this.damaged(e);
    }
  }

  /**
   * LevelDB's own report of damaged bytes, as CORRUPT naming the index and what to do; an index closed under
   * a read under way as the StrataError a closed reader gives; other errors as they are.
   */
  private damaged(e: unknown): unknown {
    const code = (e as { code?: string }).code;
    if (code === 'LEVEL_ITERATOR_NOT_OPEN' || code === 'LEVEL_DATABASE_NOT_OPEN') return closedUnder(e);
    if (code !== 'LEVEL_CORRUPTION') return e;
    this.onDamage();
    return new StrataError(
      'CORRUPT',
      `the local index at ${this.db.location} is damaged (${(e as Error).message}); close and reopen the catalog, which rebuilds ` +
        'the index from the store (or run strata repair --rebuild-index)',
      { cause: e },
    );
  }

  /** Entries in key order (or reverse), fetched in batches: memory stays bounded however long the range. */
  async *scan(range: Range): AsyncGenerator<[Key, Uint8Array]> {
    for await (const batch of this.scanBatches(range)) yield* batch;
  }

  /** The same entries in the batches the index hands them over in: one async step per batch, not per entry. */
  scanBatches(range: Range): AsyncGenerator<[Key, Uint8Array][]> {
    return this.unlanded === undefined ? this.frozenBatches(range) : this.unlanded.scanBatches(this.frozenBatches(range), range);
  }

  private async *frozenBatches(range: Range): AsyncGenerator<[Key, Uint8Array][]> {
    this.assertOpen();
    const it = this.guarded(() => this.db.iterator({ ...range, limit: range.limit ?? -1, snapshot: this.frozen, highWaterMarkBytes: SCAN_BATCH_BYTES }));
    const read = () =>
      it.nextv(SCAN_BATCH).catch((e: unknown) => {
        throw this.damaged(e);
      });
    let next: ReturnType<typeof read> | undefined;
    try {
      for (;;) {
        const batch = await (next ?? read());
        next = undefined;
        if (batch.length === 0) return;
        // After a full batch the next is asked for before this one is handed over: LevelDB reads it on the
        // thread pool's core while the caller decodes this one on the event loop's. A short batch is most
        // likely the last, and a caller that wanted one entry would wait for a read it never uses.
        if (batch.length === SCAN_BATCH) next = read();
        yield batch as [Key, Uint8Array][];
      }
    } finally {
      // A caller that stopped early may leave a read under way: its failure is nobody's to hear, not an unhandled rejection.
      await next?.catch(() => undefined);
      await it.close();
    }
  }

  /**
   * Point reads of many keys: synchronously up to SYNC_GET_MANY, else in one call through the thread pool,
   * whose hop (tens to hundreds of µs, more when the pool is busy with writes) pays off only for many.
   */
  getMany(keys: readonly Key[]): Promise<(Uint8Array | undefined)[]> {
    return this.unlanded === undefined ? this.frozenGetMany(keys) : this.unlanded.getMany(keys, (missing) => this.frozenGetMany(missing));
  }

  private async frozenGetMany(keys: readonly Key[]): Promise<(Uint8Array | undefined)[]> {
    this.assertOpen();
    if (keys.length === 0) return [];
    try {
      if (keys.length <= SYNC_GET_MANY) return keys.map((k) => this.db.getSync(k, this.pointOptions) ?? undefined);
      const values = await this.db.getMany(keys as Key[], this.pointOptions);
      return values.map((v) => v ?? undefined);
    } catch (e) {
      throw this.damaged(e);
    }
  }

  /**
   * For each prefix, whether a key under it passes `accept` — through one iterator that seeks from prefix to
   * prefix, because opening an iterator per prefix costs more than the reads. Prefixes in any order.
   */
  async anyUnder(prefixes: readonly Key[], accept: (key: Key) => boolean): Promise<boolean[]> {
    this.assertOpen();
    const out = new Array<boolean>(prefixes.length).fill(false);
    if (prefixes.length === 0) return out;
    const order = prefixes.map((p, i) => ({ p, i })).sort((a, b) => Buffer.compare(a.p, b.p));
    const it = this.guarded(() => this.db.keys({ gte: order[0]!.p, lt: prefixEnd(order.at(-1)!.p), snapshot: this.frozen }));
    try {
      for (const { p, i } of order) {
        it.seek(p);
        search: for (;;) {
          const keys = (await it.nextv(8)) as Key[];
          for (const k of keys) {
            if (!startsWith(k, p)) break search;
            if (accept(k)) {
              out[i] = true;
              break search;
            }
          }
          if (keys.length < 8) break;
        }
      }
    } catch (e) {
      throw this.damaged(e);
    } finally {
      await it.close();
    }
    return this.unlanded === undefined ? out : this.unlanded.anyUnder(out, prefixes, accept);
  }

  /** The greatest entry in [gte, lte]: "the newest version at or below S" when lte ends in S. */
  async last(gte: Key, lte: Key): Promise<[Key, Uint8Array] | undefined> {
    this.assertOpen();
    const it = this.guarded(() => this.db.iterator({ gte, lte, reverse: true, limit: 1, snapshot: this.frozen }));
    try {
      const found = (await it.next()) as [Key, Uint8Array] | undefined;
      return this.unlanded === undefined ? found : this.unlanded.last(found, gte, lte);
    } catch (e) {
      throw this.damaged(e);
    } finally {
      await it.close();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  private assertOpen(): void {
    if (this.closed) throw closedUnder(undefined);
  }
}

/**
 * Options for a point read of `frozen`, encodings named: abstract-level copies an options object that does
 * not name them on every read, which made a getSync ~8 µs here instead of ~2.7.
 */
export function pointReadOptions(frozen: FrozenState): PointReadOptions {
  return { snapshot: frozen, keyEncoding: 'view', valueEncoding: 'view' };
}

type PointReadOptions = { snapshot: FrozenState; keyEncoding: 'view'; valueEncoding: 'view' };

function closedUnder(cause: unknown): StrataError {
  return new StrataError(
    'INVALID_ARGUMENT',
    'this read was cut short: its reader or its catalog was closed while it ran (close() waits for transactions, not ' +
      'for reads); read from a reader of an open catalog, and close only once reads are done',
    cause === undefined ? {} : { cause },
  );
}

function startsWith(key: Key, prefix: Key): boolean {
  if (key.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix[i]) return false;
  return true;
}
