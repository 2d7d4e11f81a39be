// Opening a catalog: the options, the store and its log, the local index, and the index brought to an exact
// prefix of the log — created with the catalog's first entry when the store holds none, bootstrapped from the
// newest checkpoint when it is new, rebuilt when it has run ahead of the log, then caught up.
import { hostname } from 'node:os';
import * as path from 'node:path';
import { kvSeq } from '../../keys/ids.js';
import { type CatalogIdentity, decodeIdentity, IDENTITY_KEY, identityIn } from '../../keys/system.js';
import { durationMs, flag, options } from '../arguments.js';
import { StrataError } from '../errors.js';
import { KvStore } from '../kv/kv-store.js';
import type { CommitLog } from '../log/commit-log.js';
import type { LogEntry } from '../log/log-entry.js';
import { CHECKPOINT_PREFIX } from '../log/checkpoint.js';
import { COMPACTED_PREFIX } from '../log/compaction-marks.js';
import { LOG_PREFIX } from '../log/object-log.js';
import { TURNS_PREFIX } from '../log/turns.js';
import { type LogLayout, openLog } from '../log/open-log.js';
import { SEGMENTS_DIR } from '../log/segment-file.js';
import { fsExt } from '../log/segment-lock.js';
import { SegmentLog } from '../log/segment-log.js';
import { nodeCrypto } from '../on-first-use.js';
import * as q from '../read/catalog-queries.js';
import { DirectoryStore } from '../store/directory-store.js';
import { assertValidObjectKey, type ObjectStore } from '../store/object-store.js';
import { PROBE_PREFIX, S3Store, type S3StoreOptions } from '../store/s3-store.js';
import { DATA_PATH_OPTION, initEntry, KEYSPACE_LAYOUT } from './init-entry.js';
import { IndexSync } from './index-sync.js';
import { checkedClock, DEFAULT_MAX_CLOCK_SKEW_MS } from './catalog-clock.js';
import { randomUUID } from '../random.js';

/** Catalog.open's options but `sql` (the facade's, for the SQL layer): what opening the catalog itself takes. */
export interface EngineOptions {
  /** Local directory: the index lives in `<dir>/index`, and the default store in `<dir>/store`. */
  dir: string;
  /** Where the shared store is: another directory (several processes may share it), S3, or a store instance. */
  store?: { path: string } | { s3: S3StoreOptions } | ObjectStore;
  /** ms since epoch; the only clock the catalog reads. Defaults to Date.now. */
  clock?: () => number;
  /**
   * How far the clock may run ahead of the store's (S3's Date, a directory's modification times) before a
   * writer is refused (default 60,000 ms); null turns the check off (a test that moves an injected clock).
   */
  maxClockSkewMs?: number | null;
  /**
   * The jitter of the S3 store's retry pauses, uniform in [0, 1) (default Math.random). Tests pass a seeded
   * one so a run that fails can be replayed.
   */
  random?: () => number;
  /** Never write to the shared store (the local index is still maintained). */
  readOnly?: boolean;
  /**
   * Create the catalog if the store holds none (default true). With false such a store is NOT_FOUND and
   * nothing is made, neither the store nor the local index: a mistyped directory is an error, not a new
   * empty catalog.
   */
  create?: boolean;
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
   * How the commit log is kept, chosen when the catalog is created and fixed after (docs/decisions/0014):
   * 'segments' (appended to segment files under a lock; one fdatasync per commit) or 'objects' (one object
   * per entry, created if absent; for S3 and directories shared between machines). Default: segments for
   * a directory on a local file system, objects on a network file system and on S3. Given for a catalog
   * that has the other, INVALID_ARGUMENT.
   */
  logLayout?: LogLayout;
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
   * Write a checkpoint after every this many log entries (default 1,000), or sooner once this process's own
   * entries have written a million keys since its last (a catalog of few large commits); 0 turns both off. The process
   * whose commit reaches the multiple writes it in the background, from a view of that entry: the commit
   * returns at once and later commits do not wait. A multiple reached while the previous checkpoint is still
   * being written is owed: the newest state is written when that one ends. close() waits for one under way
   * and starts none; a failure shows in followStatus().lastError. Each automatic checkpoint then prunes the ones it supersedes
   * (pruneCheckpoints() with its defaults: the newest 2 stay, older ones go an hour after their successor).
   */
  checkpointEvery?: number;
  /**
   * How many times one commit is tried when other writers commit first (default 50); then it fails with
   * CONFLICT and writes nothing. A writer that lost tries in its turn (decision 0060): on a local directory
   * that try cannot lose; on S3 it can, only to a writer that has not yet seen it wait.
   */
  maxCommitAttempts?: number;
  /** How many snapshots `previous` may walk past (maintenance commits) before giving up (default 10,000). */
  previousWalkLimit?: number;
}

export interface Limits {
  maxTags: number;
  previousWalkLimit: number;
  checkpointEvery: number;
  maxCommitAttempts: number;
}

/** Everything an open catalog is made of, with its index already an exact prefix of its log. */
export interface Opened {
  sync: IndexSync;
  store: ObjectStore;
  log: CommitLog;
  clock: () => number;
  readOnly: boolean;
  /** Lets go of the store if the catalog made it (a store handed in belongs to the caller). */
  closeStore: () => void;
  limits: Limits;
  /** Key prefix of data files in the store, e.g. `data/`. */
  dataPath: string;
  writerName: string;
  /** The local directory (index, file cache). */
  dir: string;
}

const FIRST_SEQ = kvSeq(1);

function limitsOf(opts: EngineOptions): Limits {
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

/** The store the options name, and whether the catalog made it (and so closes it) or was handed it. */
export function openStore(opts: EngineOptions, random: () => number): { store: ObjectStore; owned: boolean; sync: boolean } {
  if (opts.durability !== undefined && opts.durability !== 'durable' && opts.durability !== 'relaxed') {
    throw new StrataError('INVALID_ARGUMENT', `durability is 'durable' or 'relaxed', got ${JSON.stringify(opts.durability)}`);
  }
  const sync = opts.durability !== 'relaxed';
  const s = opts.store;
  if (s !== undefined && s !== null && typeof (s as ObjectStore).putIfAbsent === 'function') return { store: s as ObjectStore, owned: false, sync };
  if (s !== undefined) options('store', s as { path?: string; s3?: S3StoreOptions }, ['path', 's3']);
  if (s === undefined) return { store: new DirectoryStore(path.join(opts.dir, 'store'), { sync }), owned: true, sync };
  if ('path' in s && typeof s.path === 'string') return { store: new DirectoryStore(s.path, { sync }), owned: true, sync };
  if ('s3' in s && s.s3 !== null && typeof s.s3 === 'object') return { store: new S3Store({ random, ...s.s3 }), owned: true, sync };
  throw new StrataError('INVALID_ARGUMENT', 'store must be { path }, { s3: { bucket, … } } or an ObjectStore instance');
}

/** Where Iceberg's metadata goes in a catalog's store (src/iceberg/), reserved here with the rest. */
export const ICEBERG_PREFIX = 'iceberg/';

/**
 * What the catalog keeps in its store beside data files. Orphan reclamation deletes what lies under the data
 * path and no row names, so a data path over any of these (or holding one) would take them for orphans.
 */
const CATALOG_PREFIXES = [LOG_PREFIX, CHECKPOINT_PREFIX, COMPACTED_PREFIX, `${SEGMENTS_DIR}/`, PROBE_PREFIX, ICEBERG_PREFIX, TURNS_PREFIX];

function normaliseDataPath(p: string | undefined): string {
  if (p === undefined) return 'data/';
  const trimmed = p.replace(/\/+$/, '');
  assertValidObjectKey(trimmed);
  const dataPath = `${trimmed}/`;
  const over = CATALOG_PREFIXES.filter((own) => own.startsWith(dataPath) || dataPath.startsWith(own));
  if (over.length > 0) {
    throw new StrataError(
      'INVALID_ARGUMENT',
      `dataPath ${dataPath} lies over ${over.join(', ')}, which the catalog keeps in its store: orphan reclamation would take them for orphans; ` +
        'choose another data path (the default is data/)',
    );
  }
  return dataPath;
}

export const ENGINE_OPTIONS: readonly (keyof EngineOptions)[] = [
  'dir',
  'store',
  'clock',
  'maxClockSkewMs',
  'random',
  'readOnly',
  'create',
  'dataPath',
  'durability',
  'logLayout',
  'exclusiveWriter',
  'writerName',
  'followIntervalMs',
  'maxTags',
  'checkpointEvery',
  'maxCommitAttempts',
  'previousWalkLimit',
];

export async function openCatalog(given: EngineOptions): Promise<Opened> {
  const opts = options('Catalog.open()', given, ENGINE_OPTIONS);
  if (typeof opts.dir !== 'string' || opts.dir === '') {
    throw new StrataError('INVALID_ARGUMENT', 'Catalog.open needs { dir }: the local directory for the index');
  }
  const limits = limitsOf(opts);
  const random = opts.random ?? Math.random;
  const requestedDataPath = opts.dataPath === undefined ? undefined : normaliseDataPath(opts.dataPath);
  const { store, owned, sync: durable } = openStore(opts, random);
  const readOnly = flag('readOnly', opts.readOnly);
  const create = flag('create', opts.create, true);
  let log: CommitLog | undefined;
  const closeStore = () => {
    log?.close?.();
    if (owned) store.close?.();
  };
  if (opts.clock !== undefined && typeof opts.clock !== 'function') throw new StrataError('INVALID_ARGUMENT', 'clock must be a function () => ms since epoch');
  const maxSkew = opts.maxClockSkewMs === null ? null : durationMs('maxClockSkewMs', opts.maxClockSkewMs, DEFAULT_MAX_CLOCK_SKEW_MS);
  const clock = checkedClock(opts.clock ?? Date.now, store, readOnly ? null : maxSkew);
  let kv: KvStore | undefined;
  try {
    // A service that ignores conditional writes would let two writers own one log entry: refuse it up front.
    if (store instanceof S3Store && !readOnly) await store.assertConditionalWrites();
    log = await openLog(store, { requested: opts.logLayout, mayCreate: !readOnly && create, sync: durable });
    // A writer's first commit names its log entry at random and, on a directory, takes flock's lock: their
    // modules load with a writable open rather than inside that commit.
    if (!readOnly) {
      nodeCrypto();
      if (log instanceof SegmentLog) fsExt();
    }
    // Before the index exists: a store with no catalog that may not get one leaves nothing behind.
    const first = await firstEntry(log, readOnly ? 'readOnly' : create ? undefined : 'create: false', clock, requestedDataPath ?? 'data/');
    kv = await KvStore.open(path.join(opts.dir, 'index'));
    if (!readOnly && maxSkew !== null && store.clockNow() === undefined) await store.readClock();
    const identity = checkedIdentity(first, log);
    const sync = new IndexSync(kv, log);
    // An index of another catalog is as useless here as a damaged one: it is emptied and filled from this store.
    if (await isForeign(kv, identity)) await kv.rebuild(kvSeq(0), '', noChunks());
    const fresh = kv.latestApplied === 0;
    if (fresh) await sync.bootstrap();
    else await sync.rebuildIfAheadOfLog();
    // Thorough: a gap of any length in the log is found before this process reads or writes anything.
    await sync.catchUp({ thorough: true });
    const view = await kv.readView();
    const dataPath = (await q.option(view, DATA_PATH_OPTION).finally(() => view.close())) ?? 'data/';
    if (requestedDataPath !== undefined && requestedDataPath !== dataPath) {
      throw new StrataError(
        'INVALID_ARGUMENT',
        `dataPath ${JSON.stringify(requestedDataPath)} was asked for, but this catalog keeps its data under ` +
          `${JSON.stringify(dataPath)} (fixed at creation); open it without dataPath`,
      );
    }
    return { sync, store, log, clock, readOnly, closeStore, limits, dataPath, writerName: opts.writerName ?? `${hostname()}:${process.pid}`, dir: opts.dir };
  } catch (e) {
    await kv?.close();
    closeStore();
    throw e;
  }
}

/** Log entry 1, creating the catalog if the store has none — unless `noCreate` names the option that forbids it. */
async function firstEntry(log: CommitLog, noCreate: string | undefined, clock: () => number, dataPath: string): Promise<LogEntry> {
  const existing = await log.read(FIRST_SEQ);
  if (existing) return existing;
  if (noCreate !== undefined) {
    throw new StrataError('NOT_FOUND', `there is no catalog in ${log.description}; it was opened with ${noCreate}, so none was created (open it once without ${noCreate} to create one)`);
  }
  const entry = initEntry(FIRST_SEQ, { uuid: randomUUID(), createdAt: clock(), layout: KEYSPACE_LAYOUT }, dataPath);
  // Two processes creating the same catalog at once: one wins, the other adopts the winner's entry.
  if (await log.append(entry)) return entry;
  return (await log.read(FIRST_SEQ))!;
}

function checkedIdentity(first: LogEntry, log: CommitLog): CatalogIdentity {
  const identity = identityIn(first.mutations);
  if (identity === undefined) {
    throw new StrataError('CORRUPT', `the first log entry in ${log.description} carries no catalog identity; this is not a Strata store`);
  }
  if ((identity.layout ?? 1) !== KEYSPACE_LAYOUT) {
    throw new StrataError(
      'INVALID_ARGUMENT',
      `${log.description} holds a catalog of keyspace layout ${identity.layout ?? 1}; this version of Strata reads layout ` +
        `${KEYSPACE_LAYOUT} only (data file listings come from manifests the older layout does not have). Open it with the ` +
        'version that created it, or create a new catalog and register its files again',
    );
  }
  return identity;
}

/** Whether the index holds another catalog than the store (an index never serves another catalog's store). */
async function isForeign(kv: KvStore, storeIdentity: CatalogIdentity): Promise<boolean> {
  const bytes = await kv.get(IDENTITY_KEY);
  return bytes !== undefined && decodeIdentity(bytes).uuid !== storeIdentity.uuid;
}

async function* noChunks(): AsyncGenerator<[Uint8Array, Uint8Array][]> {}
