// The public entry point. A Catalog owns one local index (LevelDB) and one object store; it writes through
// the commit log and reads through read views, and nothing else in the process touches either.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { type CatalogId, type KvSeq, kvSeq, type SnapshotId, snapshotId } from '../../keys/ids.js';
import { SystemKey } from '../../keys/tags.js';
import { LocalIndexError, StrataError } from '../errors.js';
import { KvStore, systemKey } from '../kv/kv-store.js';
import { deleteCheckpoint, newestCheckpoint, readCheckpoint, storedCheckpoints, writeCheckpoint } from '../log/checkpoint.js';
import { CommitLog } from '../log/commit-log.js';
import { assertValidObjectKey, type ObjectStore } from '../store/object-store.js';
import { DirectoryStore } from '../store/directory-store.js';
import { S3Store, type S3StoreOptions } from '../store/s3-store.js';
import * as q from '../read/catalog-queries.js';
import { Reader } from '../read/reader.js';
import type { SnapshotInfo } from '../read/records.js';
import type { CommitMeta } from '../txn/plan.js';
import { prepare, type TransactionFn } from '../txn/prepared.js';
import { encodeKey } from '../../keys/key-codec.js';
import type { SnapshotTagRow } from '../../keys/rows.js';
import { Tag } from '../../keys/tags.js';
import { encodeValue } from '../../keys/value-codec.js';
import { decodeRow } from '../kv/decode.js';
import type { Mutation } from '../kv/kv-store.js';
import type { ReadView } from '../kv/read-view.js';
import type { LogEntry } from '../log/log-entry.js';
import {
  checkReadSources,
  history,
  type HistoryBound,
  type ReadSource,
  resolveBound,
  type TableChanges,
  tableChanges,
  tableIdAt,
} from '../read/history.js';
import { RESERVED_TAGS, resolveSnapshot, type SnapshotSelector } from '../read/resolve-snapshot.js';
import { quote } from '../messages.js';
import { checkName, checkOptionalText } from '../txn/validate.js';
import { type CatalogIdentity, DATA_PATH_OPTION, decodeIdentity, identityOf, initEntry, KEYSPACE_LAYOUT } from './init-entry.js';
import { Mutex } from './mutex.js';
import { type AdvanceResult, type AdvanceTarget, planAdvance } from '../../gc/retain-from.js';
import { checkLeaseOptions, type LeaseInfo, type LeaseOptions, listLeases, newLeaseId, planLease, planRenew, releaseLease } from '../../gc/leases.js';
import {
  checkExciseOptions,
  type ExciseOptions,
  type ExciseReport,
  type ExcisionJobRow,
  jobs,
  nextStep,
  planExcision,
} from '../../gc/excise.js';
import { checkReclaimOptions, planReclaim, type ReclaimOptions, type ReclaimReport, unschedule } from '../../gc/reclaim.js';
import { checkPruneOptions, planCheckpointPrune, type PruneCheckpointsOptions, type PruneCheckpointsReport } from '../../gc/checkpoints.js';
import { checkCompactOptions, type CompactLogOptions, type CompactLogReport, planLogCompaction } from '../../gc/compact-log.js';
import type { LeaseHandle } from '../read/reader.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { GroupCommit, type LostRace } from './group-commit.js';

export interface OpenOptions {
  /** Local directory: the index lives in `<dir>/index`, and the default store in `<dir>/store`. */
  dir: string;
  /** Where the shared store is: another directory (several processes may share it), S3, or a store instance. */
  store?: { path: string } | { s3: S3StoreOptions } | ObjectStore;
  /** ms since epoch; the only clock the catalog reads. Defaults to Date.now. */
  clock?: () => number;
  /** Never write to the shared store (the local index is still maintained). */
  readOnly?: boolean;
  /** Key prefix of data files in the store, fixed when the catalog is created. Default `data/`. */
  dataPath?: string;
  /**
   * 'durable' (default): a commit is acknowledged once its log object is on disk. 'relaxed' (opt-in, for
   * directory stores): commits are still atomic and survive a process crash, but a machine crash may lose
   * the newest ones (the object's data is synced, its directory entry is not: a crash never leaves a
   * half-written one).
   */
  durability?: 'durable' | 'relaxed';
  /**
   * Take a writer epoch: every writer opened before (exclusive or not) gets FENCED on its next commit, and
   * entries it might still write are never applied.
   */
  exclusiveWriter?: boolean;
  /**
   * Who this process is: named in the FENCED message of writers its epoch supersedes, as the default lease
   * holder, and in excision records (default host:pid).
   */
  writerName?: string;
  /**
   * Keep up with other writers in the background: refresh() every this many ms. Failures are kept in
   * followStatus() and retried at the next tick.
   */
  followIntervalMs?: number;
  /** At most this many tags (default 1,000). */
  maxTags?: number;
  /**
   * Write a checkpoint after every this many log entries (default 1,000; 0 turns it off). The process
   * whose commit reaches the multiple writes it in the background, from a view of that entry: the commit
   * returns at once and later commits do not wait. A multiple reached while the previous checkpoint is still
   * being written is skipped (the next one covers it); close() waits for one under way; a failure shows in
   * followStatus().lastError. Each automatic checkpoint then prunes the ones it supersedes
   * (pruneCheckpoints() with its defaults: the newest 2 stay, older ones go an hour after their successor).
   */
  checkpointEvery?: number;
  /**
   * How many times one commit is tried when other writers keep committing first (default 50); then it
   * fails with CONFLICT and writes nothing.
   */
  maxCommitAttempts?: number;
  /** How many snapshots `previous` may walk past (maintenance commits) before giving up (default 10,000). */
  previousWalkLimit?: number;
}

interface Limits {
  maxTags: number;
  previousWalkLimit: number;
  checkpointEvery: number;
  maxCommitAttempts: number;
}

/** The longest pause between two attempts of one commit; pauses are drawn uniformly below 2^attempt ms. */
const MAX_BACKOFF_MS = 250;

function limitsOf(opts: OpenOptions): Limits {
  const positive = (what: string, v: number | undefined, d: number) => {
    if (v === undefined) return d;
    if (!Number.isSafeInteger(v) || v < 1) throw new StrataError('INVALID_ARGUMENT', `${what} must be a positive integer, got ${JSON.stringify(v)}`);
    return v;
  };
  return {
    maxTags: positive('maxTags', opts.maxTags, 1000),
    previousWalkLimit: positive('previousWalkLimit', opts.previousWalkLimit, 10_000),
    checkpointEvery: opts.checkpointEvery === 0 ? 0 : positive('checkpointEvery', opts.checkpointEvery, 1000),
    maxCommitAttempts: positive('maxCommitAttempts', opts.maxCommitAttempts, 50),
  };
}

export interface HistoryOptions {
  from?: HistoryBound;
  to?: HistoryBound;
  table?: { schema: string; table: string };
}

/**
 * Which snapshot a reader reads: at most one of snapshot, timestamp, tag, previous; none = the newest. With
 * `lease`, the reader also takes a durable pin that GC in every process honours until it expires or the
 * reader closes.
 */
export type ReaderOptions = SnapshotSelector & { lease?: LeaseOptions };

const FIRST_SEQ = kvSeq(1);
/** Log entries compaction replaces at once: one request each, so a long log goes in parallel batches. */
const COMPACT_BATCH = 16;

function openStore(opts: OpenOptions): ObjectStore {
  if (opts.durability !== undefined && opts.durability !== 'durable' && opts.durability !== 'relaxed') {
    throw new StrataError('INVALID_ARGUMENT', `durability is 'durable' or 'relaxed', got ${JSON.stringify(opts.durability)}`);
  }
  const sync = opts.durability !== 'relaxed';
  const s = opts.store;
  if (s === undefined) return new DirectoryStore(path.join(opts.dir, 'store'), { sync });
  if ('path' in s && typeof s.path === 'string') return new DirectoryStore(s.path, { sync });
  if ('s3' in s && s.s3 !== null && typeof s.s3 === 'object') return new S3Store(s.s3);
  if (typeof (s as ObjectStore).putIfAbsent === 'function') return s as ObjectStore;
  throw new StrataError('INVALID_ARGUMENT', 'store must be { path }, { s3: { bucket, … } } or an ObjectStore instance');
}

function normaliseDataPath(p: string | undefined): string {
  if (p === undefined) return 'data/';
  const trimmed = p.replace(/\/+$/, '');
  assertValidObjectKey(trimmed);
  return `${trimmed}/`;
}

function checkMeta(meta: CommitMeta): CommitMeta {
  if (meta === null || typeof meta !== 'object') throw new StrataError('INVALID_ARGUMENT', 'commit metadata must be an object');
  checkOptionalText('author', meta.author);
  checkOptionalText('message', meta.message);
  checkOptionalText('extraInfo', meta.extraInfo);
  if (meta.maintenance !== undefined && typeof meta.maintenance !== 'boolean') {
    throw new StrataError('INVALID_ARGUMENT', 'maintenance must be a boolean');
  }
  return { ...meta, readSources: checkReadSources(meta.readSources) };
}

/** Runs `fn` over a view of the newest local state and closes the view after, whatever happens. */
async function withView<T>(kv: KvStore, fn: (view: ReadView) => Promise<T>): Promise<T> {
  const view = await kv.readView();
  try {
    return await fn(view);
  } finally {
    await view.close();
  }
}

/**
 * Applies log entries that are in the store but not yet in the local index; replay is idempotent. An index
 * that meets a compacted entry is older than the log the store still holds: it is rebuilt from the newest
 * checkpoint (which covers that entry: compaction only stubs entries a checkpoint holds), and replay goes on
 * after it.
 */
async function applyLog(kv: KvStore, log: CommitLog): Promise<void> {
  for (;;) {
    let compacted: KvSeq | undefined;
    for await (const entry of log.readAfter(kv.latestApplied)) {
      if (entry.kind === 'compacted') {
        compacted = entry.seq;
        break;
      }
      await applyEntry(kv, entry);
    }
    if (compacted === undefined) return;
    const checkpoint = await newestCheckpointInLog(log);
    if (checkpoint === undefined || checkpoint.seq < compacted) {
      throw new StrataError(
        'CORRUPT',
        `log entry ${compacted} was compacted, and the newest checkpoint in ${log.store.description} ` +
          `(${checkpoint?.seq ?? 'none'}) does not cover it; the store has lost a checkpoint it needs`,
      );
    }
    await kv.rebuild(checkpoint.seq, readCheckpoint(log.store, checkpoint));
  }
}

/**
 * An index holds a prefix of its store's log. One whose newest applied entry the store does not hold, or holds
 * as another entry (another `txn`), was built from history the store no longer has: the store was put back
 * from an older copy, or a machine crash in relaxed mode lost the entry's name but not the index's write.
 * Serving it would show commits that do not exist, and its next commit would leave a gap in the log that no
 * reader could pass; so it is rebuilt, from the newest checkpoint the log reaches or else from entry 1.
 */
async function rebuildIfAheadOfLog(kv: KvStore, log: CommitLog): Promise<void> {
  const seq = kv.latestApplied;
  if (seq === 0) return;
  const entry = await log.read(seq);
  const txn = kv.latestAppliedTxn;
  // A stub still names an entry the log had; an index that never recorded a txn can only be checked by number.
  if (entry !== undefined && (entry.kind === 'compacted' || txn === '' || entry.txn === txn)) return;
  const checkpoint = await newestCheckpointInLog(log);
  await kv.rebuild(checkpoint?.seq ?? kvSeq(0), checkpoint === undefined ? noChunks() : readCheckpoint(log.store, checkpoint));
}

async function* noChunks(): AsyncGenerator<[Uint8Array, Uint8Array][]> {}

/** The newest complete checkpoint whose entry the log holds: one ahead of the log would put an index ahead of it. */
function newestCheckpointInLog(log: CommitLog) {
  return newestCheckpoint(log.store, async (seq) => (await log.read(seq)) !== undefined);
}

/**
 * Applies one entry. An entry written under a writer epoch older than the index's current one comes from
 * a fenced writer: its sequence number is consumed, its mutations are not applied.
 */
async function applyEntry(kv: KvStore, entry: LogEntry): Promise<void> {
  const fenced = entry.epoch < (await writerEpoch(kv)).epoch;
  await kv.apply(entry.seq, entry.txn, fenced ? [] : entry.mutations);
}

function asStrataError(e: unknown): StrataError {
  return e instanceof StrataError ? e : new StrataError('STORE_UNAVAILABLE', String(e), { cause: e });
}

interface WriterEpochRow {
  epoch: number;
  holder: string;
  since: number;
}

const WRITER_EPOCH_KEY = systemKey(SystemKey.WriterEpoch);

async function writerEpoch(from: Pick<KvStore, 'get'>): Promise<WriterEpochRow> {
  const bytes = await from.get(WRITER_EPOCH_KEY);
  return bytes === undefined ? { epoch: 0, holder: '', since: 0 } : decodeRow<WriterEpochRow>(WRITER_EPOCH_KEY, bytes);
}

export class Catalog {
  private readonly writer = new Mutex();
  private readonly commits = new GroupCommit({
    loop: (attempt) => this.commitLoop(attempt),
    append: (view, snapshots, mutations) => this.appendAndApply(view, { kind: 'commit', snapshots, mutations }),
    clock: () => this.clock(),
  });
  private readonly readers = new Set<Reader>();
  /** The background load of the snapshot timeline started by open(); close() waits for it. */
  private warming: Promise<void> = Promise.resolve();
  /** The automatic checkpoint being written, if any (see checkpointEvery); close() waits for it. */
  private checkpointing: Promise<void> | undefined;
  /** Transactions under way, from their function to their commit: close() lets them finish. */
  private readonly transactions = new Set<Promise<unknown>>();
  private closed = false;

  /** This process's writer epoch: 0 unless it opened with exclusiveWriter. */
  private epoch = 0;
  private follower: NodeJS.Timeout | undefined;
  private followed: { lastRefreshAt: Date | null; lastError: StrataError | null } = { lastRefreshAt: null, lastError: null };

  private constructor(
    private readonly kv: KvStore,
    private readonly log: CommitLog,
    private readonly clock: () => number,
    private readonly readOnly: boolean,
    private readonly limits: Limits,
    /** Key prefix of data files in the store, e.g. `data/`. */
    readonly dataPath: string,
    /** Who this process is, in writer epochs, leases and excision records (default host:pid). */
    private readonly writerName: string,
  ) {}

  static async open(opts: OpenOptions): Promise<Catalog> {
    if (opts === null || typeof opts !== 'object' || typeof opts.dir !== 'string' || opts.dir === '') {
      throw new StrataError('INVALID_ARGUMENT', 'Catalog.open needs { dir }: the local directory for the index');
    }
    const limits = limitsOf(opts);
    const store = openStore(opts);
    // A service that ignores conditional writes would let two writers own one log entry: refuse it up front.
    if (store instanceof S3Store && opts.readOnly !== true) await store.assertConditionalWrites();
    const log = new CommitLog(store);
    const clock = opts.clock ?? Date.now;
    const requestedDataPath = opts.dataPath === undefined ? undefined : normaliseDataPath(opts.dataPath);
    const kv = await KvStore.open(path.join(opts.dir, 'index'));
    try {
      const first = await Catalog.firstEntry(log, store, opts.readOnly === true, clock, requestedDataPath ?? 'data/');
      const identity = identityOf(first);
      if (identity === undefined) {
        throw new StrataError('CORRUPT', `the first log entry in ${store.description} carries no catalog identity; this is not a Strata store`);
      }
      if ((identity.layout ?? 1) !== KEYSPACE_LAYOUT) {
        throw new StrataError(
          'INVALID_ARGUMENT',
          `${store.description} holds a catalog of keyspace layout ${identity.layout ?? 1}; this version of Strata reads layout ` +
            `${KEYSPACE_LAYOUT} only (data file listings come from manifests the older layout does not have). Open it with the ` +
            'version that created it, or create a new catalog and register its files again',
        );
      }
      // A new index starts from the newest checkpoint, then replays only the log after it.
      const fresh = kv.latestApplied === 0;
      if (fresh) {
        const checkpoint = await newestCheckpointInLog(log);
        if (checkpoint !== undefined) await kv.restore(checkpoint.seq, readCheckpoint(store, checkpoint));
      }
      await Catalog.checkIdentity(kv, identity, opts.dir, store);
      if (!fresh) await rebuildIfAheadOfLog(kv, log);
      await applyLog(kv, log);
      const dataPath = (await withView(kv, (view) => q.option(view, DATA_PATH_OPTION))) ?? 'data/';
      if (requestedDataPath !== undefined && requestedDataPath !== dataPath) {
        throw new StrataError(
          'INVALID_ARGUMENT',
          `dataPath ${JSON.stringify(requestedDataPath)} was asked for, but this catalog keeps its data under ` +
            `${JSON.stringify(dataPath)} (fixed at creation); open it without dataPath`,
        );
      }
      const writerName = opts.writerName ?? `${hostname()}:${process.pid}`;
      const catalog = new Catalog(kv, log, clock, opts.readOnly === true, limits, dataPath, writerName);
      // In the background: the first timestamp lookup would otherwise scan the time index itself. A failure
      // only leaves that to the first lookup.
      catalog.warming = kv.warmTimeline().catch(() => undefined);
      if (opts.exclusiveWriter === true) await catalog.claimWriterEpoch(writerName);
      if (opts.followIntervalMs !== undefined) catalog.follow(opts.followIntervalMs);
      return catalog;
    } catch (e) {
      await kv.close();
      throw e;
    }
  }

  /** Log entry 1, creating the catalog if the store has none (and we may write). */
  private static async firstEntry(log: CommitLog, store: ObjectStore, readOnly: boolean, clock: () => number, dataPath: string) {
    const existing = await log.read(FIRST_SEQ);
    if (existing) return existing;
    if (readOnly) {
      throw new StrataError('NOT_FOUND', `there is no catalog in ${store.description}; open it once without readOnly to create one`);
    }
    const entry = initEntry(FIRST_SEQ, { uuid: randomUUID(), createdAt: clock(), layout: KEYSPACE_LAYOUT }, dataPath);
    // Two processes creating the same catalog at once: one wins, the other adopts the winner's entry.
    if (await log.append(entry)) return entry;
    return (await log.read(FIRST_SEQ))!;
  }

  private static async checkIdentity(kv: KvStore, storeIdentity: CatalogIdentity, dir: string, store: ObjectStore) {
    const bytes = await kv.get(systemKey(SystemKey.CatalogIdentity));
    if (bytes !== undefined && decodeIdentity(bytes).uuid !== storeIdentity.uuid) {
      throw new StrataError(
        'INVALID_ARGUMENT',
        `the index in ${dir} belongs to catalog ${decodeIdentity(bytes).uuid}, but ${store.description} holds catalog ` +
          `${storeIdentity.uuid}; give this store a fresh dir`,
      );
    }
  }

  /** Takes the next writer epoch: from now on, writers holding an older one (or none) are FENCED. */
  private async claimWriterEpoch(holder: string): Promise<void> {
    if (this.readOnly) throw new StrataError('INVALID_ARGUMENT', 'exclusiveWriter and readOnly exclude each other');
    this.epoch = await this.commitLoop(async (view) => {
      const epoch = (await writerEpoch(view)).epoch + 1;
      const row: WriterEpochRow = { epoch, holder, since: this.clock() };
      const mutations: Mutation[] = [{ type: 'put', key: WRITER_EPOCH_KEY, value: encodeValue(row) }];
      const lost = await this.appendAndApply(view, { kind: 'system', snapshots: [], mutations }, epoch);
      return lost ?? { value: epoch };
    });
  }

  /** Runs `fn` over a view of the newest local state. */
  private async read<T>(fn: (view: ReadView) => Promise<T>): Promise<T> {
    this.assertOpen();
    return withView(this.kv, fn);
  }

  private catchUp(): Promise<void> {
    return applyLog(this.kv, this.log);
  }

  private follow(intervalMs: number): void {
    if (!Number.isFinite(intervalMs) || intervalMs < 1) {
      throw new StrataError('INVALID_ARGUMENT', `followIntervalMs must be a positive number of ms, got ${JSON.stringify(intervalMs)}`);
    }
    let running = false;
    this.follower = setInterval(() => {
      if (running || this.closed) return;
      running = true;
      this.refresh().then(
        () => (this.followed = { lastRefreshAt: new Date(this.clock()), lastError: null }),
        (e: unknown) => (this.followed = { ...this.followed, lastError: asStrataError(e) }),
      ).finally(() => (running = false));
    }, intervalMs);
    // Following must not keep a process alive on its own.
    this.follower.unref();
  }

  /**
   * With followIntervalMs: when the background refresh last succeeded. The error of the last background
   * refresh or automatic checkpoint, if it failed.
   */
  followStatus(): { lastRefreshAt: Date | null; lastError: StrataError | null } {
    return { ...this.followed };
  }

  /** Applies entries that other writers committed to the shared store since this process last looked. */
  async refresh(): Promise<void> {
    this.assertOpen();
    await this.writer.run(() => this.catchUp());
  }

  /**
   * Runs `fn` against the newest committed state and commits what it did as one snapshot. Returns the new
   * snapshot id, or null when the net effect on the catalog is empty.
   *
   * Transactions are optimistic, as DuckLake's are: `fn` runs once, concurrently with other transactions of
   * this process and of other writers. If others commit first, this one is checked against their changes
   * with DuckLake's conflict rules and, when they commute (e.g. inserts into one table), its recorded
   * operations are replayed on the newer state under fresh ids. Transactions of this process that are ready
   * at once share one log entry (group commit), each with its own snapshot.
   */
  async transaction(fn: TransactionFn, meta: CommitMeta = {}): Promise<{ snapshot: SnapshotId | null }> {
    this.assertWritable();
    if (typeof fn !== 'function') throw new StrataError('INVALID_ARGUMENT', 'transaction() takes a function (tx) => …');
    const checked = checkMeta(meta);
    const running = (async () => {
      // While a group of this process is being written, asking the store would find that group's own
      // entry and wait for it; whatever else is new, the group's write learns and the rebase handles.
      if (!this.commits.busy) await this.catchUpIfBehind();
      const prepared = await withView(this.kv, (view) => prepare(view, fn, checked, this.clock()));
      if (prepared.plan.mutations.length === 0) return { snapshot: null };
      return this.commits.commit(prepared);
    })();
    this.transactions.add(running);
    try {
      return await running;
    } finally {
      this.transactions.delete(running);
    }
  }

  /**
   * Runs `attempt` as this process's only writer over the newest local state, again (after catching up and
   * a jittered pause) each time another writer took the log entry it tried to write, up to
   * maxCommitAttempts. The first try does not ask the store what is new: a stale state loses the race for
   * its entry, which costs what the question would have.
   */
  private commitLoop<T>(attempt: (view: ReadView) => Promise<{ value: T } | LostRace>): Promise<T> {
    return this.writer.run(async () => {
      for (let n = 1; ; n++) {
        if (n > 1) await this.catchUp();
        const out = await withView(this.kv, attempt);
        if ('value' in out) return out.value;
        if (n >= this.limits.maxCommitAttempts) throw await this.gaveUp(out.lostAt, n);
        await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** n));
      }
    });
  }

  private async gaveUp(seq: KvSeq, attempts: number): Promise<StrataError> {
    const other = await this.log.read(seq);
    const newest = other?.snapshots.at(-1);
    const what = newest === undefined ? `log entry ${seq}` : `snapshot ${newest} (log entry ${seq})`;
    return new StrataError(
      'CONFLICT',
      `other writers committed first ${attempts} times in a row (the last: ${what}); nothing was written — ` +
        'run the transaction again, or open the catalog with a higher maxCommitAttempts',
      newest === undefined ? {} : { snapshot: newest },
    );
  }

  /**
   * Restores a table's columns and files to what they were at `snapshot`, as a new commit (history only
   * moves forward; the restored-from snapshot stays readable). Returns the new snapshot, or null if the
   * table already is as it was.
   */
  restoreTable(schema: string, table: string, snapshot: number, meta: CommitMeta = {}): Promise<{ snapshot: SnapshotId | null }> {
    return this.transaction((tx) => tx.restoreTable(schema, table, snapshot), {
      message: `restore ${quote(schema, table)} to snapshot ${snapshot}`,
      ...meta,
    });
  }

  /** Restores the whole catalog (schemas, tables, views, columns, files) to `snapshot`, as a new commit. */
  restoreCatalog(snapshot: number, meta: CommitMeta = {}): Promise<{ snapshot: SnapshotId | null }> {
    return this.transaction((tx) => tx.restoreCatalog(snapshot), { message: `restore the catalog to snapshot ${snapshot}`, ...meta });
  }

  /** A reader pinned to one snapshot (the newest, or the one `selector` names); close it when done. */
  async reader(options: ReaderOptions = {}): Promise<Reader> {
    this.assertOpen();
    if (options === null || typeof options !== 'object') {
      throw new StrataError('INVALID_ARGUMENT', 'reader() takes { snapshot } | { timestamp } | { tag } | { previous: true }, and { lease }');
    }
    const unknown = Object.keys(options).filter((k) => !['snapshot', 'timestamp', 'tag', 'previous', 'lease'].includes(k));
    if (unknown.length > 0) {
      throw new StrataError('INVALID_ARGUMENT', `reader() does not take ${unknown.join(', ')}; it takes one of snapshot, timestamp, tag, previous, and lease`);
    }
    const { lease, ...selector } = options;
    const leaseOptions = lease === undefined ? undefined : checkLeaseOptions(lease);
    if (leaseOptions) this.assertWritable();
    // Retain-from, tags and the newest snapshot as the store has them now, not as this index last saw them.
    await this.freshen();
    const view = await this.kv.readView();
    try {
      const { id, row } = await resolveSnapshot(view, selector, { previousWalkLimit: this.limits.previousWalkLimit });
      const pin = leaseOptions && (await this.takeLease(id, leaseOptions.holder ?? this.writerName, leaseOptions.ttlMs));
      const reader = new Reader(view, await q.snapshotInfo(view, id, row), (r) => this.readers.delete(r), pin);
      this.readers.add(reader);
      return reader;
    } catch (e) {
      await view.close();
      throw e;
    }
  }

  /**
   * Catches up with the store before a read. A store that cannot be reached leaves the local state in use
   * (and the error in followStatus()): reads stay available; GC's grace period covers the gap. An index that
   * cannot be written is another matter: it may lack commits this process acknowledged, so the read fails.
   */
  private async freshen(): Promise<void> {
    try {
      await this.catchUpIfBehind();
    } catch (e) {
      if (e instanceof LocalIndexError) throw e;
      this.followed = { ...this.followed, lastError: asStrataError(e) };
    }
  }

  /**
   * Applies what other writers committed since this process last looked. The common case, nothing new, is
   * one probe of the next entry, without waiting for this process's own writer (whose commits apply
   * themselves).
   */
  private async catchUpIfBehind(): Promise<void> {
    if ((await this.log.read(kvSeq(this.kv.latestApplied + 1))) === undefined) return;
    await this.writer.run(() => this.catchUp());
  }

  /** Runs `fn` over the newest state, after catching up with the store as a reader does. */
  private async readFresh<T>(fn: (view: ReadView) => Promise<T>): Promise<T> {
    await this.freshen();
    return this.read(fn);
  }

  private async takeLease(snapshot: SnapshotId, holder: string, ttlMs: number): Promise<LeaseHandle> {
    const id = newLeaseId();
    const now = this.clock();
    await this.writeSystem(async (view) => ({ mutations: await planLease(view, id, snapshot, holder, now, ttlMs), value: undefined }));
    const handle: LeaseHandle = {
      id,
      holder,
      expiresAt: new Date(now + ttlMs),
      renew: async (ms: number) => {
        const { ttlMs: checked } = checkLeaseOptions({ ttlMs: ms });
        const at = this.clock();
        await this.writeSystem(async (view) => ({ mutations: await planRenew(view, id, at, checked), value: undefined }));
        handle.expiresAt = new Date(at + checked);
        return handle.expiresAt;
      },
      release: () => this.writeSystem(async (view) => ({ mutations: (await q.lease(view, id)) ? releaseLease(id) : [], value: undefined })),
    };
    return handle;
  }

  /** The leases readers hold (expired ones included until their reader closes; they protect nothing). */
  async leases(): Promise<LeaseInfo[]> {
    return this.readFresh((view) => listLeases(view, this.clock()));
  }

  // ---------------------------------------------------------------- retention and GC

  /** Retain-from: untagged snapshots below it are OUT_OF_RETENTION. 0 until first advanced. */
  async retainFrom(): Promise<SnapshotId> {
    return this.readFresh(async (view) => (await q.retainFrom(view)).snapshot);
  }

  /**
   * Moves retain-from forward: to `{ snapshot }`, or past the snapshots committed before `{ olderThan }`.
   * Never backwards, never past the newest snapshot, never past an unexpired lease (the result says which).
   */
  async advanceRetainFrom(target: AdvanceTarget, options: { dryRun?: boolean } = {}): Promise<AdvanceResult> {
    const now = this.clock();
    if (options.dryRun === true) {
      return this.readFresh(async (view) => (await planAdvance(view, target, now)).result);
    }
    this.assertWritable();
    return this.writeSystem(async (view) => {
      const { result, mutations } = await planAdvance(view, target, now);
      return { mutations, value: result };
    });
  }

  /**
   * Physically deletes what retain-from made unreadable (see gc/excise.ts), in logged batches; a job a crash
   * interrupted is resumed. Open readers keep their views.
   */
  async excise(options: ExciseOptions = {}): Promise<ExciseReport> {
    this.assertOpen();
    const opts = checkExciseOptions(options);
    const now = this.clock();
    if (opts.dryRun) {
      return this.readFresh(async (view) => ({ dryRun: true, job: null, ...(await planExcision(view, now, opts.batchSize, opts.retainFrom)) }));
    }
    this.assertWritable();
    let jobId: number | undefined;
    for (;;) {
      const id = jobId;
      const job = await this.writeSystem(async (view) => {
        const step = await nextStep(view, id, this.writerName, now, opts.batchSize);
        return { mutations: step.mutations, value: step.job };
      });
      jobId = job.id;
      const { versions, snapshots, files, finishedAt, retainFrom } = job.row;
      opts.onProgress?.({ versions, snapshots, files });
      if (finishedAt !== null) return { dryRun: false, retainFrom, job: job.id, versions, snapshots, files };
    }
  }

  /** The records of excision jobs, oldest first: when, who, retain-from, what each removed. */
  async excisionJobs(): Promise<({ id: number } & ExcisionJobRow)[]> {
    return this.read(async (view) => {
      const out = [];
      for await (const j of jobs(view)) out.push({ id: j.id, ...j.row });
      return out;
    });
  }

  /**
   * Deletes from the store the files excision scheduled, once their grace period is over. With `orphans`,
   * also unnamed objects under the data path, and the leftovers of writes a crash cut short anywhere in the
   * store (temporary files, probe objects), older than minAgeMs. Catalog objects are never touched.
   */
  async reclaimFiles(options: ReclaimOptions = {}): Promise<ReclaimReport> {
    this.assertOpen();
    const opts = checkReclaimOptions(options);
    if (!opts.dryRun) this.assertWritable();
    const now = this.clock();
    // Strictly caught up (a store it cannot reach is an error here): deleting goes by the newest state.
    await this.refresh();
    const plan = await this.read((view) => planReclaim(view, this.log.store, this.dataPath, now, opts));
    const abandoned = opts.orphans ? await this.log.store.sweep(now - opts.minAgeMs, opts.dryRun) : [];
    const report = { dryRun: opts.dryRun, scheduled: plan.waiting, deleted: plan.due, orphans: plan.orphans, abandoned };
    if (opts.dryRun) return report;
    await this.log.store.delete([...plan.due, ...plan.orphans].map((p) => `${this.dataPath}${p}`));
    const gone = [...plan.due, ...plan.named];
    if (gone.length > 0) await this.writeSystem(async () => ({ mutations: unschedule(gone), value: undefined }));
    return report;
  }

  /**
   * Deletes checkpoints that newer ones have superseded, keeping the newest `keep` complete ones, and
   * checkpoints left incomplete by a writer that stopped. Store space: each checkpoint is a full copy of
   * the catalog. Log compaction relies only on the newest, which is always kept, so no state is lost.
   */
  async pruneCheckpoints(options: PruneCheckpointsOptions = {}): Promise<PruneCheckpointsReport> {
    this.assertOpen();
    const opts = checkPruneOptions(options);
    if (!opts.dryRun) this.assertWritable();
    return this.prune(opts);
  }

  /** The work of pruneCheckpoints, also run after an automatic checkpoint (possibly while closing). */
  private async prune(opts: Required<PruneCheckpointsOptions>): Promise<PruneCheckpointsReport> {
    const stored = await storedCheckpoints(this.log.store);
    const doomed = planCheckpointPrune(stored, this.clock(), opts);
    const gone = new Set(doomed.map((c) => c.seq));
    const report = {
      dryRun: opts.dryRun,
      kept: stored.filter((c) => c.complete && !gone.has(c.seq)).map((c) => c.seq),
      deleted: doomed.map((c) => c.seq),
      objects: doomed.reduce((n, c) => n + c.keys.length, 0),
    };
    if (!opts.dryRun) for (const c of doomed) await deleteCheckpoint(this.log.store, c);
    return report;
  }

  /**
   * Replaces the log entries the newest old-enough checkpoint covers with stubs (docs/decisions/0006): what
   * they wrote, excised rows included, leaves the store. A process whose index is older than the stubs
   * rebuilds it from that checkpoint when it next reads the log.
   */
  async compactLog(options: CompactLogOptions = {}): Promise<CompactLogReport> {
    this.assertOpen();
    const opts = checkCompactOptions(options);
    if (!opts.dryRun) this.assertWritable();
    const plan = planLogCompaction(await storedCheckpoints(this.log.store), await this.log.compactedThrough(), this.clock(), opts);
    if (plan === undefined) return { dryRun: opts.dryRun, through: null, entries: 0 };
    const report = { dryRun: opts.dryRun, through: plan.through, entries: plan.through - plan.from + 1 };
    if (opts.dryRun) return report;
    for (let at: number = plan.from; at <= plan.through; at += COMPACT_BATCH) {
      const last = Math.min(plan.through, at + COMPACT_BATCH - 1);
      await Promise.all(Array.from({ length: last - at + 1 }, (_, i) => this.log.compact(kvSeq(at + i))));
    }
    await this.log.markCompacted(plan.through);
    return report;
  }

  // ---------------------------------------------------------------- tags

  /** Pins `snapshot` under `name`. Tags are immutable: moving one is dropTag + createTag. */
  async createTag(name: string, snapshot: number): Promise<void> {
    checkName('tag name', name);
    if (RESERVED_TAGS.has(name)) {
      throw new StrataError('INVALID_ARGUMENT', `${JSON.stringify(name)} is a reserved tag name (it always means the ${name} snapshot); choose another`);
    }
    await this.writeSystemEntry(async (view) => {
      if ((await q.tag(view, name)) !== undefined) {
        throw new StrataError('ALREADY_EXISTS', `tag ${JSON.stringify(name)} already exists; tags are immutable: drop it first to move it`);
      }
      const { id } = await resolveSnapshot(view, { snapshot }, { previousWalkLimit: this.limits.previousWalkLimit });
      let count = 0;
      for await (const _ of q.tags(view)) count++;
      if (count >= this.limits.maxTags) {
        throw new StrataError(
          'INVALID_ARGUMENT',
          `the catalog already has ${count} tags, its limit; drop tags no longer needed, or open it with a higher maxTags`,
        );
      }
      const row: SnapshotTagRow = { snapshot: id, createdAt: this.clock() };
      return [{ type: 'put', key: encodeKey(Tag.SnapshotTag, [name]), value: encodeValue(row) }];
    });
  }

  async dropTag(name: string): Promise<void> {
    checkName('tag name', name);
    await this.writeSystemEntry(async (view) => {
      if ((await q.tag(view, name)) === undefined) {
        throw new StrataError('TAG_NOT_FOUND', `tag ${JSON.stringify(name)} does not exist; catalog.tags() lists the tags`);
      }
      return [{ type: 'del', key: encodeKey(Tag.SnapshotTag, [name]) }];
    });
  }

  async tags(): Promise<{ name: string; snapshot: SnapshotId; createdAt: Date }[]> {
    return this.read(async (view) => {
      const out = [];
      for await (const t of q.tags(view)) out.push({ name: t.name, snapshot: t.snapshot, createdAt: new Date(t.createdAt) });
      return out;
    });
  }

  /**
   * Writes a system entry (one that changes no catalog snapshot): `build` sees the newest state and returns
   * the entry's mutations, or throws to write nothing. A lost race builds again on the newer state.
   */
  private async writeSystemEntry(build: (view: ReadView) => Promise<Mutation[]>): Promise<void> {
    this.assertWritable();
    await this.writeSystem(async (view) => ({ mutations: await build(view), value: undefined }));
  }

  /** As writeSystemEntry, for builders that also compute a result; no mutations = nothing written. */
  private writeSystem<T>(build: (view: ReadView) => Promise<{ mutations: Mutation[]; value: T }>): Promise<T> {
    return this.commitLoop(async (view) => {
      const { mutations, value } = await build(view);
      if (mutations.length === 0) return { value };
      const lost = await this.appendAndApply(view, { kind: 'system', snapshots: [], mutations });
      return lost ?? { value };
    });
  }

  /**
   * The commit point: log entry `view.seq + 1` is created in the store, then applied to the index. Returns
   * undefined when it was, or where the race was lost when another writer owns that entry. A writer whose
   * epoch was superseded writes nothing.
   */
  private async appendAndApply(
    view: ReadView,
    body: Pick<LogEntry, 'kind' | 'snapshots' | 'mutations'>,
    epoch = this.epoch,
  ): Promise<LostRace | undefined> {
    const current = await writerEpoch(view);
    if (current.epoch > epoch) {
      throw new StrataError(
        'FENCED',
        `this writer (epoch ${epoch}) was superseded by ${current.holder} (epoch ${current.epoch}) at ` +
          `${new Date(current.since).toISOString()}; nothing was written — reopen the catalog to write again`,
      );
    }
    const seq = kvSeq(view.seq + 1);
    const entry: LogEntry = { seq, epoch, txn: randomUUID(), ...body };
    if (!(await this.log.appendOwn(entry))) return { lostAt: seq };
    try {
      await applyEntry(this.kv, entry);
    } catch (e) {
      // The entry is in the store, so the commit happened whatever the index says: failing the commit would
      // invite a retry that commits it twice. The index is behind the log now; reads catch it up first, and
      // fail while it cannot be written (freshen) rather than show a state without this commit.
      this.followed = { ...this.followed, lastError: asStrataError(e) };
      return undefined;
    }
    if (this.limits.checkpointEvery > 0 && seq % this.limits.checkpointEvery === 0 && this.checkpointing === undefined) {
      // Taken here, inside the writer, so the checkpoint is of exactly this entry whatever commits next.
      this.checkpointInBackground(await this.kv.readView());
    }
    return undefined;
  }

  /**
   * Writes an automatic checkpoint of `view` (and closes it) without holding up commits: on a large
   * catalog a checkpoint takes seconds (bench: ~10 s for 1.5M keys). Then prunes the checkpoints it
   * supersedes, with pruneCheckpoints' defaults, as Delta cleans up when it checkpoints: each is a full copy
   * of the catalog. The commit it follows is durable already, so a failure is only reported.
   */
  private checkpointInBackground(view: ReadView): void {
    this.checkpointing = (async () => {
      try {
        await this.checkpointAt(view);
        await this.prune(checkPruneOptions({}));
      } catch (e) {
        this.followed = { ...this.followed, lastError: asStrataError(e) };
      } finally {
        this.checkpointing = undefined;
        await view.close().catch(() => undefined);
      }
    })();
  }

  /**
   * Writes a checkpoint of the newest state to the store (`checkpoints/<seq>/…`), so that new machines
   * bootstrap from it instead of replaying the whole log. Returns where it stands.
   */
  async checkpoint(): Promise<{ seq: KvSeq; chunks: number; keys: number }> {
    this.assertWritable();
    return this.writer.run(async () => {
      await this.catchUp();
      return withView(this.kv, (view) => this.checkpointAt(view));
    });
  }

  private async checkpointAt(view: ReadView): Promise<{ seq: KvSeq; chunks: number; keys: number }> {
    const m = await writeCheckpoint(this.log.store, view.seq, this.kv.checkpointEntries(view), this.clock());
    return { seq: m.seq, chunks: m.chunks, keys: m.keys };
  }

  /**
   * The history, oldest first, streamed: every snapshot, or those in [from, to] (ids or times, inclusive),
   * or only those that created, changed or dropped one table (named as it is now, or as it was at `to`).
   */
  async *iterateSnapshots(opts: HistoryOptions = {}): AsyncGenerator<SnapshotInfo> {
    this.assertOpen();
    const view = await this.kv.readView();
    try {
      const head = (await q.headSnapshot(view)).begin;
      const from = opts.from === undefined ? snapshotId(0) : await resolveBound(view, 'from', opts.from);
      const to = opts.to === undefined ? head : await resolveBound(view, 'to', opts.to);
      let tableId: CatalogId | undefined;
      if (opts.table !== undefined) {
        const { schema, table } = opts.table;
        tableId = (await tableIdAt(view, head, schema, table)) ?? (await tableIdAt(view, to, schema, table));
        if (tableId === undefined) throw new StrataError('NOT_FOUND', `table ${quote(schema, table)} exists neither now nor at snapshot ${to}`);
      }
      yield* history(view, from, to, tableId);
    } finally {
      await view.close();
    }
  }

  async snapshots(opts: HistoryOptions = {}): Promise<SnapshotInfo[]> {
    const out: SnapshotInfo[] = [];
    for await (const s of this.iterateSnapshots(opts)) out.push(s);
    return out;
  }

  /**
   * The data files a table gained and lost, and the delete files it gained, in snapshots [from, to] (ids or
   * times, both inclusive, as DuckLake's table_changes). The table is named as it was at `to` (or at
   * `from`) and followed by id, so a rename inside the range does not break the answer.
   */
  async changes(schema: string, table: string, range: { from: HistoryBound; to: HistoryBound }): Promise<TableChanges> {
    if (range === null || typeof range !== 'object') throw new StrataError('INVALID_ARGUMENT', 'changes() takes { from, to }');
    return this.read(async (view) => {
      const from = await resolveBound(view, 'from', range.from);
      const to = await resolveBound(view, 'to', range.to);
      if (from > to) throw new StrataError('INVALID_ARGUMENT', `from (snapshot ${from}) is after to (snapshot ${to}); swap them`);
      const tableId = (await tableIdAt(view, to, schema, table)) ?? (await tableIdAt(view, from, schema, table));
      if (tableId === undefined) {
        throw new StrataError('NOT_FOUND', `table ${quote(schema, table)} exists neither at snapshot ${from} nor at ${to}`);
      }
      return tableChanges(view, tableId, from, to);
    });
  }

  /** The table snapshots a commit said it was computed from (`meta.readSources`), the receipt for a replay. */
  async lineage(snapshot: number): Promise<ReadSource[]> {
    return this.read(async (view) => {
      const id = await resolveBound(view, 'snapshot', snapshot);
      return (await q.snapshotChanges(view, id))?.readSources ?? [];
    });
  }

  /**
   * The catalog's options (DuckLake's ducklake_metadata: data_path and what transactions set with
   * setOption). Options are not versioned: this is their current value.
   */
  async options(): Promise<Record<string, string>> {
    return this.read(async (view) => Object.fromEntries(await q.options(view)));
  }

  /** Where the engine should write (and read) a data file registered under `relativePath`. */
  dataFileLocation(relativePath: string): string {
    return this.log.store.url(`${this.dataPath}${relativePath}`);
  }

  /** Closes open readers and the index. Commits already acknowledged are durable in the store. */
  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.follower);
    // Readers release their leases through the log, so they close while the catalog is still open; a
    // release that fails leaves the lease to expire.
    await Promise.all([...this.readers].map((r) => r.close().catch(() => undefined)));
    this.closed = true;
    await Promise.allSettled([...this.transactions, this.warming]);
    await this.writer.run(async () => undefined);
    // Last: any write that was still under way (a tag, a lease) may have started one.
    await this.checkpointing;
    await this.kv.close();
  }

  private assertWritable(): void {
    this.assertOpen();
    if (this.readOnly) throw new StrataError('READ_ONLY', 'this catalog was opened with readOnly: true; open it without readOnly to write');
  }

  private assertOpen(): void {
    if (this.closed) throw new StrataError('INVALID_ARGUMENT', 'this catalog is closed; open it again with Catalog.open');
  }
}
