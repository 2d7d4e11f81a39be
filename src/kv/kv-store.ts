// The local index: a LevelDB directory that holds the applied prefix of the commit log. Every write is one
// atomic batch that also records the kv sequence it brings the index to (and that entry's txn), so "which
// entries are applied" and "what they changed" can never disagree, whatever point a crash hits.
import { statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { Level } from 'level';
import { type KvSeq, kvSeq } from '../../keys/ids.js';
import { ALL_TIMES } from '../../keys/snapshots.js';
import type { Key } from '../../keys/key-codec.js';
import type { Mutation } from '../../keys/mutation.js';
import {
  APPLIED_SEQ_KEY,
  APPLIED_TXN_KEY,
  decodeSeq,
  decodeTxn,
  isIdClaim,
  isIndexBookkeeping,
  WHOLE_KEYSPACE,
} from '../../keys/system.js';
import { LocalIndexError, StrataError } from '../errors.js';
import { makeDirs } from '../make-dirs.js';
import { checkInChild } from './index-check.js';
import { seal, unseal } from './index-seal.js';
import { type Db, type FrozenState, IndexView, pointReadOptions, type ReadBehind, type ReadView, type StateReads } from './read-view.js';
import { SnapshotTimeline } from './snapshot-timeline.js';
import type { PutSet } from './put-set.js';
import { entryBatch, MAX_UNLANDED_MUTATIONS, UnlandedWrites } from './unlanded.js';
import { VersionCache } from './version-cache.js';

/** How long the index is open before the snapshot timeline is read anyway (readTimelineLater). */
const TIMELINE_AFTER_MS = 1000;

/** Unlanded entries after which an apply lets the event loop turn (see apply). */
const YIELD_EVERY = 8;

async function openLevel(path: string): Promise<Db> {
  makeDirs(path); // not level's own mkdir: see make-dirs.ts
  const db: Db = new Level<Uint8Array, Uint8Array>(path, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  return db;
}

const causeCode = (e: unknown) => (e as { cause?: { code?: string } }).cause?.code;

function indexUnavailable(path: string, e: unknown, locked: boolean): StrataError {
  const cause = (e as { cause?: { message?: string } }).cause;
  const hint = locked
    ? ' It is open already: in another process, or in this one by a Catalog.open not yet closed. Close that one, or give each open catalog its own index directory (--dir).'
    : '';
  return new StrataError('STORE_UNAVAILABLE', `cannot open the local index at ${path}: ${cause?.message ?? (e as Error).message}.${hint}`, {
    cause: e,
  });
}

/** One frozen LevelDB state, shared by every view opened on the same applied state. */
interface SharedState {
  frozen: FrozenState;
  seq: KvSeq;
  views: number;
  /** No new view may take it: a newer state exists. Closed when its last view is. */
  retired: boolean;
  /** What its views read once for all of them: a state never changes. */
  reads: StateReads;
  /** The puts of entries applied but not landed when the state was frozen, which its views overlay. */
  unlanded: PutSet | undefined;
}

// Writes go through chained batches: abstract-level's array form copies and re-validates every operation
// object (measured 15–21 µs per operation against 2–5 µs chained), which dominated commits, checkpoint
// restores and excision batches.
export class KvStore {
  /** The frozen state new views share while no entry has been applied since it was taken. */
  private current: SharedState | undefined;
  private applying = 0;
  /** A rebuild() under way: new views wait for it. */
  private rebuilding: Promise<void> | undefined;
  /** LevelDB reported damage while open: the index is not sealed at close, so the next open checks it. */
  private damagedWhileOpen = false;
  private readonly unlanded: UnlandedWrites;
  private readonly failureListeners: ((e: Error) => void)[] = [];
  /** The timeline's background read, while one is under way (readTimeline). */
  private timelineRead: Promise<unknown> | undefined;
  /** The timer of readTimelineLater, until it fires or the index closes. */
  private timelineLater: NodeJS.Timeout | undefined;
  /** Set as close() begins: a background read of the timeline stops at its next batch. */
  private closing = false;
  /** Parents being read whole in the background (readBehind), by parent: close() waits for them. */
  private readonly readsBehind = new Map<string, Promise<void>>();

  private constructor(
    private readonly db: Db,
    private readonly cache: VersionCache,
    private readonly timeline: SnapshotTimeline,
    /** The newest applied sequence, as this process knows it. */
    private latest: KvSeq,
    /** That entry's `txn`; '' when unknown (restored from a checkpoint and nothing applied since, or older). */
    private latestTxn: string,
    /** Why the index found at open was removed and created empty, if it was. */
    readonly damage: string | undefined,
  ) {
    this.lastChange = latest;
    this.unlanded = new UnlandedWrites(db, (what, e) => this.writeFailure(what, e), (e) => {
      for (const l of this.failureListeners) l(e);
    });
  }

  /** Resolves once every applied entry's batch has landed; rejects with the write failure if one did not. */
  landed(): Promise<void> {
    return this.unlanded.settled();
  }

  /** Tells `listener` of an index write that failed after its entry was applied in memory (see unlanded.ts). */
  onWriteFailure(listener: (e: Error) => void): void {
    this.failureListeners.push(listener);
  }

  /** The last entry applied that changed more than the id horizon (see changedSince). */
  private lastChange: KvSeq;

  /**
   * Opens the index at `path`, creating it if there is none. The index holds nothing the store does not, so
   * one found damaged is removed and created empty, and the catalog fills it from the store: one whose files
   * changed since it was sealed at its last close (index-seal.ts), one that was not closed cleanly and that a
   * check in a child process finds damaged or aborts on (index-check.ts), one LevelDB refuses to open (a
   * missing MANIFEST, corruption), one whose applied sequence cannot be read. `damage` says why, when it was.
   */
  static async open(path: string): Promise<KvStore> {
    let damage: string | undefined;
    const found = statSync(path, { throwIfNoEntry: false });
    // Damage is removed and rebuilt; a file in the index's place is nothing Strata wrote, so it is not.
    if (found !== undefined && !found.isDirectory()) {
      throw new StrataError(
        'INVALID_ARGUMENT',
        `${path} is a file, not a directory: Strata keeps its local index there. Move it away (the index is rebuilt from ` +
          'the store), or give Catalog.open({ dir }) (strata --dir) a directory where nothing is in the way',
      );
    }
    if (found !== undefined) {
      const sealed = await unseal(path);
      if (sealed === 'broken') damage = 'its files changed while it was closed';
      if (sealed === 'none') {
        const check = await checkInChild(path);
        if (!check.ok && check.locked) throw indexUnavailable(path, new Error(check.reason), true);
        if (!check.ok) damage = check.reason;
      }
    }
    for (let attempt = 1; ; attempt++) {
      if (damage !== undefined) await rm(path, { recursive: true, force: true });
      let db: Db;
      try {
        db = await openLevel(path);
      } catch (e) {
        if (causeCode(e) === 'LEVEL_LOCKED' || attempt > 1) throw indexUnavailable(path, e, causeCode(e) === 'LEVEL_LOCKED');
        damage = `LevelDB could not open it: ${(e as { cause?: Error }).cause?.message ?? (e as Error).message}`;
        continue;
      }
      try {
        const applied = decodeSeq(db.getSync(APPLIED_SEQ_KEY) ?? undefined);
        const txn = decodeTxn(db.getSync(APPLIED_TXN_KEY) ?? undefined);
        return new KvStore(db, new VersionCache(applied), new SnapshotTimeline(applied), applied, txn, damage);
      } catch (e) {
        await db.close();
        if (attempt > 1) throw e;
        damage = (e as Error).message;
      }
    }
  }

  /** A point read of the newest applied state. */
  async get(key: Key): Promise<Uint8Array | undefined> {
    this.unlanded.check();
    return this.unlanded.get(key) ?? this.db.getSync(key) ?? undefined;
  }

  /**
   * The newest applied sequence, with no read of the index: read once at open, then kept by apply() and
   * restore(), the only writers of an index that is this process's alone (LevelDB's lock).
   */
  get latestApplied(): KvSeq {
    return this.latest;
  }

  /** The `txn` of log entry `latestApplied` ('' when unknown), kept in memory like the number. */
  get latestAppliedTxn(): string {
    return this.latestTxn;
  }

  /**
   * Whether an entry after `seq` changed the catalog's state — anything but a claim of ids, which changes
   * what no transaction reads: a transaction prepared at `seq` then commits its own plan, not a replay.
   */
  changedSince(seq: KvSeq): boolean {
    return this.lastChange > seq;
  }

  /**
   * Applies log entry `seq` (written as `txn`) as one atomic batch. Entries must arrive in order; the log,
   * not this index, is the source of truth, so the batch is not fsync'd: after a crash the entry is simply
   * replayed. An entry that only puts is applied in memory at once and its batch lands later (unlanded.ts);
   * one that deletes (excision, a dropped tag or lease) or is large waits for those and for its own batch.
   */
  async apply(seq: KvSeq, txn: string, mutations: readonly Mutation[]): Promise<void> {
    this.unlanded.check();
    if (seq !== this.latest + 1) {
      throw new StrataError('CORRUPT', `log entry ${seq} cannot follow applied entry ${this.latest}; rebuild the index from the store`);
    }
    const awaited = mutations.length > MAX_UNLANDED_MUTATIONS || mutations.some((m) => m.type === 'del');
    if (awaited || this.unlanded.mutations + mutations.length > MAX_UNLANDED_MUTATIONS) await this.unlanded.settled();
    // A loop of commits can run on microtasks alone (the log's writes are synchronous), and a batch's
    // completion is an I/O callback: a turn of the event loop lets a landed batch be seen and the next one
    // go. Taken every few entries, so that a batch carries several (submitting one costs ~50 µs of this
    // thread's time, whatever its size).
    else if (this.unlanded.entries >= YIELD_EVERY) await yieldTurn();
    // In-memory mirrors learn of the entry before its batch lands, so no reader can see it without them.
    this.cache.beginApply(mutations);
    this.timeline.beginApply(mutations);
    if (!awaited) {
      this.unlanded.push(seq, txn, mutations);
      this.applied(seq, txn, mutations);
      return;
    }
    this.applying++;
    let done: KvSeq | undefined;
    try {
      await this.written(`log entry ${seq}`, entryBatch(this.db, mutations, seq, txn).write({ sync: false }));
      done = seq;
    } finally {
      this.applying--;
      if (done === undefined) {
        this.cache.endApply(undefined);
        this.timeline.endApply(undefined);
      } else this.applied(seq, txn, mutations);
    }
  }

  /** Entry `seq` is the newest applied: views opened from now on show it. */
  private applied(seq: KvSeq, txn: string, mutations: readonly Mutation[]): void {
    this.latest = seq;
    this.latestTxn = txn;
    if (!isIdClaim(mutations)) this.lastChange = seq;
    this.retire(this.current);
    this.current = undefined;
    this.cache.endApply(seq);
    this.timeline.endApply(seq);
  }

  /**
   * Fills the index from a checkpoint taken at `seq` (its entries in key order), then records `seq` as
   * applied. Only from applied sequence 0 (a new index, or one being rebuilt), and whatever a restore or
   * rebuild interrupted by a crash left behind is cleared first: a crash part-way leaves the applied sequence
   * at 0, so the next open starts over.
   */
  async restore(seq: KvSeq, txn: string, chunks: AsyncIterable<[Uint8Array, Uint8Array][]>): Promise<void> {
    if (this.latest !== 0) {
      throw new StrataError('CORRUPT', 'a checkpoint can only be loaded into an empty index');
    }
    await this.unlanded.settled();
    const what = `checkpoint ${seq}`;
    await this.written(what, this.db.clear());
    for await (const chunk of chunks) {
      const batch = this.db.batch();
      for (const [key, value] of chunk) batch.put(key, value);
      await this.written(what, batch.write({ sync: false }));
    }
    await this.written(what, entryBatch(this.db, [], seq, txn).write({ sync: false }));
    this.latest = seq;
    this.latestTxn = txn;
    this.lastChange = seq;
    this.retire(this.current);
    this.current = undefined;
    this.cache.reset(seq);
    this.timeline.reset(seq);
  }

  /**
   * Replaces the whole index with a checkpoint taken at `seq`: the log entries this index would replay
   * next were compacted (docs/decisions/0006). The applied sequence goes first, in its own synced batch, so
   * a crash leaves an index that the next open restores. New views wait for the end; views already open
   * keep reading their own frozen states.
   */
  async rebuild(seq: KvSeq, txn: string, chunks: AsyncIterable<[Uint8Array, Uint8Array][]>): Promise<void> {
    const done = (async () => {
      await this.unlanded.settled();
      await this.written(`checkpoint ${seq}`, this.db.batch().del(APPLIED_SEQ_KEY).del(APPLIED_TXN_KEY).write({ sync: true }));
      this.latest = kvSeq(0);
      this.latestTxn = '';
      this.retire(this.current);
      this.current = undefined;
      await this.restore(seq, txn, chunks);
    })();
    this.rebuilding = done.catch(() => undefined);
    try {
      await done;
    } finally {
      this.rebuilding = undefined;
    }
  }

  /**
   * Reads the timeline in the background once the index has been open TIMELINE_AFTER_MS, unless a lookup had
   * it read sooner: a process that lives that long (a service, a job) is likely to ask, and its read then
   * overlaps the commits it makes; one that ends sooner (a CLI call) never pays for it.
   */
  readTimelineLater(): void {
    this.timelineLater ??= setTimeout(() => this.timeline.isLoaded || this.readTimeline(), TIMELINE_AFTER_MS).unref();
  }

  /**
   * Reads the snapshot timeline in the background, unless a read is under way or the index is closing: a
   * scan of the time index (~0.1 s per 20,000 snapshots on this VM) that a short process naming no snapshot
   * by time never pays, and that the lookup asking first does not wait for (it seeks the time index, as every
   * lookup does until the timeline is read). Commits applied meanwhile are added to it, and from then on
   * every apply extends it. Gives up quietly if something is forgotten meanwhile (an excision); the next
   * lookup that misses reads it again.
   */
  private readTimeline(): void {
    if (this.timelineRead !== undefined || this.closing) return;
    this.timelineRead = (async () => {
      const view = await this.readView();
      try {
        await this.timeline.load(view.seq, view.scanBatches(ALL_TIMES), () => this.closing);
      } finally {
        await view.close();
      }
    })()
      .catch(() => undefined)
      .finally(() => (this.timelineRead = undefined));
  }

  /** Every key of a view but the index's own bookkeeping (the applied entry), in order. */
  async *checkpointEntries(view: ReadView): AsyncGenerator<[Uint8Array, Uint8Array][]> {
    for await (const batch of view.scanBatches(WHOLE_KEYSPACE)) yield batch.filter(([key]) => !isIndexBookkeeping(key));
  }

  /**
   * A frozen view of the newest applied state. Views opened while no entry is applied in between share one
   * frozen LevelDB state: taking and releasing one costs more than most reads made through it.
   */
  async readView(): Promise<ReadView> {
    while (this.rebuilding !== undefined) await this.rebuilding;
    this.unlanded.check();
    let shared = this.current;
    if (shared === undefined || shared.retired || this.applying > 0) {
      const frozen = this.db.snapshot();
      let seq: KvSeq;
      try {
        // With no batch in flight the frozen state holds the newest applied entry, or the entries before it
        // whose batches have not landed, which its views merge in (unlanded.ts).
        seq = this.applying === 0 ? this.latest : decodeSeq(this.db.getSync(APPLIED_SEQ_KEY, pointReadOptions(frozen)) ?? undefined);
      } catch (e) {
        await frozen.close();
        throw e;
      }
      // Only a freeze of the newest state, taken with no apply in flight, may be handed to later views.
      const reusable = this.applying === 0 && seq === this.latest;
      const unlanded = this.unlanded.empty ? undefined : this.unlanded.putSet();
      shared = { frozen, seq, views: 0, retired: !reusable, reads: { values: new Map(), parentsRead: new Set(), completeParents: new Map() }, unlanded };
      if (reusable) {
        this.retire(this.current);
        this.current = shared;
      }
    }
    return this.viewOf(shared);
  }

  /** A view of frozen state `s`, which stays open until its last view closes. */
  private viewOf(s: SharedState): IndexView {
    s.views++;
    return new IndexView(
      this.db,
      s.frozen,
      s.unlanded,
      s.seq,
      this.cache,
      this.timeline,
      s.reads,
      async () => {
        s.views--;
        if (s.views === 0 && s.retired) await s.frozen.close();
      },
      () => (this.damagedWhileOpen = true),
      () => this.readTimeline(),
      (parentId, read) => this.readBehind(s, parentId, read),
    );
  }

  /**
   * Runs a view's read of a whole parent (IndexView.group) on a view of its own of the same state, in the
   * background, unless the index is closing or that parent is being read already (from any state): whether
   * it started. A view whose read was not started asks again at its next miss — the read under way may be of
   * an older state, whose groups the cache will not take. A read that fails gives the cache nothing; the
   * misses that read their own groups meet the failure themselves.
   */
  private readBehind(s: SharedState, parentId: string, read: Parameters<ReadBehind>[1]): boolean {
    if (this.closing || this.readsBehind.has(parentId)) return false;
    const view = this.viewOf(s);
    const done = read(view, () => this.closing)
      .catch(() => undefined)
      .finally(async () => {
        this.readsBehind.delete(parentId);
        await view.close();
      })
      .catch(() => undefined);
    this.readsBehind.set(parentId, done);
    return true;
  }

  /**
   * Awaits a write to the index. A failure (a full disk, an I/O error) is a LocalIndexError: the index, not
   * the store, failed, and LevelDB refuses further writes until it is opened again.
   */
  private async written(what: string, write: Promise<unknown>): Promise<void> {
    try {
      await write;
    } catch (e) {
      throw this.writeFailure(what, e);
    }
  }

  private writeFailure(what: string, e: unknown): LocalIndexError {
    return new LocalIndexError(
      'STORE_UNAVAILABLE',
      `cannot write ${what} to the local index at ${this.db.location}: ${(e as Error).message}. The store holds ` +
        'every commit; once the disk is fixed, reopen the catalog and its index catches up from the store',
      { cause: e },
    );
  }

  private retire(s: SharedState | undefined): void {
    if (s === undefined || s.retired) return;
    s.retired = true;
    if (s.views === 0) void s.frozen.close().catch(() => undefined);
  }

  /** Closes the index and seals it, so the next open can tell it was not changed in between. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.timelineLater);
    await this.timelineRead;
    await Promise.all(this.readsBehind.values());
    // A batch that failed leaves the index at the entry before it: the next open replays from there.
    await this.landed().catch(() => undefined);
    this.retire(this.current);
    this.current = undefined;
    await this.db.close();
    // Without a seal the next open checks the index in a child process instead: slower, never wrong.
    if (!this.damagedWhileOpen) await seal(this.db.location).catch(() => undefined);
  }
}
