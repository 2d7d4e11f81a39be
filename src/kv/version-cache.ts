// Decoded versions of catalog metadata (schemas, tables, views, columns and their name indexes) and of the
// files of small tables, kept in memory by group: a group is every version under one key prefix that a read
// resolves together.
//
// Why a cache that is shared by readers at different snapshots is correct: history is immutable. What is
// visible at a committed snapshot S never changes — later commits only add versions that begin after S and
// set `end`s that lie after S — so a group read from any state that contains S answers every question about
// S identically. The one thing the cache must never hold is a group that is *older* than some reader's view:
//   - every applied entry brings the cached groups it touches to the state it leaves *before* its batch is
//     written (a reader of an older view that sees one early gets the same answers, by the argument above),
//     and forgets them if the batch fails; a group an entry deletes from (excision) is dropped instead,
//     since a reader opened before retain-from moved may still read the removed versions through its view;
//   - a group is stored from a read only when it was read from the newest applied state with no apply in
//     flight.
// Excision (which removes versions) goes through the same apply path, and reads below retain-from are refused.
import { cachedGroupOf, type GroupKind, isImmutablePoint, pointId, pointSpace } from '../../keys/groups.js';
import type { KvSeq } from '../../keys/ids.js';
import type { Key } from '../../keys/key-codec.js';
import type { Mutation } from '../../keys/mutation.js';
import { decodeValue, ValueDecodeError } from '../../keys/value-codec.js';
import { decodeVersion, type StoredVersion } from '../../keys/versions.js';

/**
 * The largest file group kept (ReadView.versionBatches stops keeping past it): the files of bigger tables
 * are streamed from the index every time. Metadata groups are kept whole whatever their size, so a lookup
 * never re-reads an entity's history.
 */
export const MAX_CACHED_GROUP = 4096;

/** Where a read-ahead of file groups starts: at the parent's first group, or at the group missed. */
export type ReadAheadStart = 'first' | 'here';

/**
 * Approximately least-recently-used, at the cost of a Map lookup per hit: groups live in a young and an old
 * generation; a hit in the old one moves the group to the young one; when the young one fills half the
 * capacity it becomes the old one and the previous old one is dropped.
 */
export class VersionCache {
  private young = new Map<string, readonly StoredVersion[]>();
  private old = new Map<string, readonly StoredVersion[]>();
  /**
   * Parents read whole since they last changed: later misses under them (a name being created, a group
   * evicted) read only their own group, so a transaction creating many names does not re-read the parent
   * for each one. Also the file groups a listing's read-ahead found, and their parent once a read-ahead
   * from its first group was kept (readAheadStart).
   */
  private readonly warmed = new Set<string>();
  /** How many misses there were under each parent (missed). */
  private readonly misses = new Map<string, number>();
  /**
   * Parents every group of which the cache holds: read whole (not cut at the read-ahead limit), with nothing
   * under them evicted or dropped since, and every group created under them since stored as it was written.
   * A miss under one is a group that does not exist, so it costs no read: a name checked before it is
   * created, and the first lookup of each of a thousand tables made in one commit, are answered from memory.
   */
  private readonly complete = new Set<string>();
  /** How many times the young generation became the old one (and the old one was dropped). */
  private flips = 0;
  private readonly points = new Points();
  private applying = 0;
  /** Groups and points brought forward by the apply in flight. */
  private patched: string[] = [];
  private patchedPoints: Key[] = [];
  /** Whether the apply in flight deletes (excision, a dropped tag, a released lease). */
  private deleting = false;
  /**
   * Counts the times history was removed from the index: an applied entry that deletes, or the index
   * replaced from a checkpoint. A group stored after that may lack versions that a view opened before it
   * still reads through its own frozen LevelDB state (see get).
   */
  private removals = 0;

  constructor(
    /** The newest applied sequence: groups are stored only from views of exactly this state. */
    private latest: KvSeq,
    private readonly capacity = 50_000,
  ) {}

  /** What a view records when it opens, to pass to get(). */
  get generation(): number {
    return this.removals;
  }

  /**
   * A cached group, for a view opened at `generation`. None once history was removed since: groups stored
   * afterwards come from the index without what was removed, which such a view still reads (a reader
   * opened before retain-from moved, or whose lease expired), so it reads its own snapshot instead.
   */
  get(id: string, generation: number): readonly StoredVersion[] | undefined {
    if (generation !== this.removals) return undefined;
    const young = this.young.get(id);
    if (young !== undefined) return young;
    const old = this.old.get(id);
    if (old !== undefined) this.store(id, old);
    return old;
  }

  offer(id: string, versions: readonly StoredVersion[], viewSeq: KvSeq): void {
    if (this.applying > 0 || viewSeq !== this.latest) return;
    this.store(id, versions);
  }

  private store(id: string, versions: readonly StoredVersion[]): void {
    this.young.set(id, versions);
    if (this.young.size >= this.capacity / 2) {
      this.old = this.young;
      this.young = new Map();
      // The dropped generation took groups with it: no parent is known whole any more.
      this.flips++;
      this.complete.clear();
    }
  }

  /** Whether every group under `parentId` is cached, for a view opened at `generation` (see get). */
  holdsWhole(parentId: string, generation: number): boolean {
    return generation === this.removals && this.complete.has(parentId);
  }

  /** Forgets everything: the index was replaced wholesale (bootstrap from a checkpoint). */
  reset(latest: KvSeq): void {
    this.young.clear();
    this.old.clear();
    this.warmed.clear();
    this.complete.clear();
    this.points.clear();
    this.latest = latest;
    this.removals++;
  }

  getPoint(key: Key): unknown {
    return this.points.get(key);
  }

  offerPoint(key: Key, value: unknown, viewSeq: KvSeq): void {
    if (this.applying > 0 || viewSeq !== this.latest) return;
    if (this.points.size >= this.capacity) this.points.clear();
    this.points.set(key, value);
  }

  /**
   * Whether a miss under this parent should read the whole parent: from the `on`th miss under it (see
   * missed), and not once the cache holds what that read.
   */
  shouldReadAhead(parentId: string, on: number): boolean {
    return !this.warmed.has(parentId) && this.missed(parentId, on);
  }

  /**
   * Where a read of other groups beside group `id` (a table's files; `parentId`, every table's) should start,
   * for a view of state `viewSeq` opened at `generation`: undefined where it should not be made — what it reads
   * would not be kept or served to that view, a read-ahead found the group before (a miss on one that was
   * evicted reads only its own group), or this is the first miss under the parent; else at the parent's first
   * group until a read from there was kept, and at `id` after.
   */
  readAheadStart(id: string, parentId: string, viewSeq: KvSeq, generation: number): ReadAheadStart | undefined {
    if (this.applying > 0 || viewSeq !== this.latest || generation !== this.removals || this.warmed.has(id) || !this.missed(parentId, 2)) return undefined;
    return this.warmed.has(parentId) ? 'here' : 'first';
  }

  /**
   * Counts a miss under `parentId`: whether it is the `on`th or a later one. A process that asks about one
   * entity — a command that shows one table — reads that entity's groups alone, a few small reads, instead of
   * every table's rows, columns and files (tens of ms on a thousand tables); one that asks about more is likely
   * to ask about many, and reads ahead from the miss the group's kind names (GroupKind.readAheadOn).
   */
  private missed(parentId: string, on: number): boolean {
    const n = (this.misses.get(parentId) ?? 0) + 1;
    if (n >= on) return true;
    if (this.misses.size >= this.capacity) this.misses.clear();
    this.misses.set(parentId, n);
    return false;
  }

  /**
   * The groups a read-ahead found under `parentId` (see readAheadStart), kept under the same rule as offer().
   * `from`: where it started; at the first group, the parent counts as read ahead, and as held whole when the
   * read was `whole` (every group under it, none cut or left out), as offerParent's. `leftOut`: groups it
   * passed over as too large.
   */
  offerReadAhead(parentId: string, groups: readonly [string, readonly StoredVersion[]][], viewSeq: KvSeq, from: ReadAheadStart, whole: boolean, leftOut: readonly string[] = []): void {
    if (this.applying > 0 || viewSeq !== this.latest) return;
    if (this.warmed.size + groups.length + leftOut.length >= this.capacity) this.warmed.clear();
    // A group left out (too large to keep) is marked like one read: its misses read it alone, not ahead again.
    for (const id of leftOut) this.warmed.add(id);
    const flips = this.flips;
    for (const [id, versions] of groups) {
      this.store(id, versions);
      this.warmed.add(id);
    }
    if (from !== 'first') return;
    this.warmed.add(parentId);
    // One flip kept what this loop stored (in the old generation); a second would have dropped some.
    if (whole && this.flips - flips <= 1) this.complete.add(parentId);
  }

  /**
   * The groups of a parent read whole. The parent counts as warmed only if they were stored: a read from an
   * older state (a reader opened before the last commit) or during an apply is not kept, and marking the
   * parent anyway would leave every later miss under it to read its own group, one scan each.
   */
  offerParent(parentId: string, groups: readonly [string, readonly StoredVersion[]][], viewSeq: KvSeq, whole: boolean): void {
    if (this.applying > 0 || viewSeq !== this.latest) return;
    const flips = this.flips;
    for (const [id, versions] of groups) this.store(id, versions);
    if (this.warmed.size >= this.capacity) this.warmed.clear();
    this.warmed.add(parentId);
    // One flip kept what this loop stored (in the old generation); a second would have dropped some.
    if (whole && this.flips - flips <= 1) this.complete.add(parentId);
  }

  /**
   * Before an entry's batch is written: every cached group the entry touches is brought to the state the
   * entry leaves (its puts applied to a copy; a group it deletes from is dropped), so a catalog that keeps
   * committing keeps its cache warm. A reader of an older view may see such a group early; history being
   * immutable, it answers that reader's snapshot as before. Nothing is stored from reads until the apply is
   * done.
   */
  beginApply(mutations: readonly Mutation[]): void {
    this.applying++;
    this.deleting = mutations.some((m) => m.type === 'del');
    const touched = new Map<string, { spec: GroupKind; changes: Mutation[]; parentId: string }>();
    for (const m of mutations) {
      if (isImmutablePoint(m.key)) {
        // Written once: a put is the value every later read would find.
        if (m.type === 'del') this.points.delete(m.key);
        else {
          if (this.points.size >= this.capacity) this.points.clear();
          this.points.set(m.key, Object.freeze(decodeValue(m.key, m.value)));
        }
        this.patchedPoints.push(m.key);
      }
      const cached = cachedGroupOf(m.key);
      if (cached === undefined) continue;
      const { id, parentId, kind } = cached;
      let group = touched.get(id);
      if (!group) touched.set(id, (group = { spec: kind, changes: [], parentId }));
      group.changes.push(m);
    }
    for (const [id, { spec, changes, parentId }] of touched) {
      const current = this.young.get(id) ?? this.old.get(id);
      if (current === undefined) {
        // Not cached: under a parent the cache holds whole, a group that does not exist yet (a name being
        // created), which is then exactly what this entry puts; under any other, left to be read.
        if (!this.complete.has(parentId)) continue;
        if (changes.some((m) => m.type === 'del')) {
          this.complete.delete(parentId);
          continue;
        }
        const created = patchedOrUndefined([], changes);
        if (created === undefined || !keeps(spec, created)) this.complete.delete(parentId);
        else {
          this.store(id, created);
          this.patched.push(id);
        }
        continue;
      }
      this.young.delete(id);
      this.old.delete(id);
      // Deletes are excision's: the versions they remove may still be read by a reader opened before
      // retain-from moved, through its own view. Such a group is dropped, so misses read their own view.
      if (changes.some((m) => m.type === 'del')) {
        this.complete.delete(parentId);
        continue;
      }
      const next = patchedOrUndefined(current, changes);
      if (next === undefined) {
        this.complete.delete(parentId);
        continue;
      }
      if (keeps(spec, next)) this.store(id, next);
      // A group let go leaves its parent short of it: a miss there must read, not take it for one with none.
      else this.complete.delete(parentId);
      this.patched.push(id);
    }
  }

  endApply(applied: KvSeq | undefined): void {
    this.applying--;
    if (applied !== undefined) {
      this.latest = applied;
      // Counted once the batch has landed: a view opened while it was written may hold either state.
      if (this.deleting) this.removals++;
    }
    // A batch that failed leaves the index as it was: the groups brought forward for it must go.
    else {
      for (const id of this.patched) (this.young.delete(id), this.old.delete(id));
      this.complete.clear();
      for (const key of this.patchedPoints) this.points.delete(key);
    }
    this.patched = [];
    this.patchedPoints = [];
  }
}

/** Metadata groups are kept whatever their size; file groups only up to the cap (as when read). */
const keeps = (spec: GroupKind, versions: readonly StoredVersion[]) => spec.metadata || versions.length <= MAX_CACHED_GROUP;

/**
 * patched(), or undefined when a put does not decode (a value a buggy writer logged): the group is then left
 * to be read, where the damage is reported to whoever reads it (and verify's values-decode), not to the apply.
 */
function patchedOrUndefined(current: readonly StoredVersion[], changes: readonly Mutation[]): readonly StoredVersion[] | undefined {
  try {
    return patched(current, changes);
  } catch (e) {
    if (e instanceof ValueDecodeError) return undefined;
    throw e;
  }
}

/** A group with an entry's puts applied, as a new frozen array (readers may hold the old one). */
function patched(current: readonly StoredVersion[], changes: readonly Mutation[]): readonly StoredVersion[] {
  const out = current.slice();
  for (const m of changes) {
    let lo = 0;
    let hi = out.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (Buffer.compare(out[mid]!.key, m.key) < 0) lo = mid + 1;
      else hi = mid;
    }
    const same = lo < out.length && Buffer.compare(out[lo]!.key, m.key) === 0;
    if (m.type === 'del') throw new Error('a group with deletes is dropped, not patched');
    if (same) out[lo] = decodeVersion(m.key, m.value);
    else out.splice(lo, 0, decodeVersion(m.key, m.value));
  }
  return Object.freeze(out);
}

/** The immutable points, one map per space keyed by snapshot id. */
class Points {
  private readonly bySpace = new Map<number, Map<number, unknown>>();
  size = 0;

  get(key: Key): unknown {
    return this.bySpace.get(pointSpace(key))?.get(pointId(key));
  }

  set(key: Key, value: unknown): void {
    let map = this.bySpace.get(pointSpace(key));
    if (!map) this.bySpace.set(pointSpace(key), (map = new Map()));
    const before = map.size;
    map.set(pointId(key), value);
    this.size += map.size - before;
  }

  delete(key: Key): void {
    const map = this.bySpace.get(pointSpace(key));
    if (map?.delete(pointId(key))) this.size--;
  }

  clear(): void {
    this.bySpace.clear();
    this.size = 0;
  }
}
