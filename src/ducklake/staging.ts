// Where an import builds its catalog, and how the catalog moves into place: a catalog exists once its store
// holds log entry 1 (decision 0017's open reads it first), so the import builds the whole catalog — its
// store's log, layout record and checkpoint, and its index — beside the target, where nobody opens it, and
// moves it in only when it is complete and verified. A failure before that leaves nothing: the staging
// directories go, and the data objects the import put in the store are deleted (docs/decisions/0034).
//   a directory store: the staging store is a hidden directory inside the store's root (its listing shows
//     no name starting with "."), so each of its entries is renamed into the root — the log's directory,
//     then the layout record, whose arrival is the catalog's;
//   any other store (S3): the staging store is a local directory whose objects are created in the store
//     with create-if-absent, log entry 1 last.
// The staging index, beside the target's index directory, is renamed into place last: the index is a
// cache, and a crash before that leaves a catalog that open fills an index for.
import * as fsSync from 'node:fs';
import { link, mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { kvSeq } from '../../keys/ids.js';
import { type EngineOptions, openStore } from '../commit/open.js';
import { StrataError } from '../errors.js';
import { logObjectKey } from '../log/object-log.js';
import { DirectoryStore } from '../store/directory-store.js';
import type { ObjectStore } from '../store/object-store.js';
import { S3Store } from '../store/s3-store.js';
import { randomHex } from '../random.js';

/** What a store holds once a catalog was made in it (data objects aside). */
const CATALOG_ENTRIES = ['log-layout', 'log', 'segments', 'checkpoints', 'compacted'];
const LAYOUT = 'log-layout';
const LOGS = new Set(['log', 'segments']);

const fsync = promisify(fsSync.fsync);

const exists = (p: string) => stat(p).then(() => true, () => false);

/** Opens a file or directory only to sync it: a rename is durable once both directories are. */
async function syncPath(p: string): Promise<void> {
  const fd = fsSync.openSync(p, fsSync.constants.O_RDONLY);
  try {
    await fsync(fd);
  } finally {
    fsSync.closeSync(fd);
  }
}

/** Syncs every file and directory under `dir` (the staging store was written without syncs), deepest first. */
async function syncTree(dir: string): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await syncTree(p);
    else await syncPath(p);
  }
  await syncPath(dir);
}

/** The directories of `p` that do not exist yet, outermost first: what a failed import removes again. */
async function missingDirs(p: string): Promise<string[]> {
  const out: string[] = [];
  for (let d = path.resolve(p); !(await exists(d)); d = path.dirname(d)) {
    out.unshift(d);
    if (path.dirname(d) === d) break;
  }
  return out;
}

export class Stage {
  /** The store's objects created so far by the publish (S3), or entries renamed into its root (a directory). */
  private readonly published: string[] = [];
  private publishedFirst = false;

  private constructor(
    /** The store the catalog goes into: the import's copies and checks go straight to it. */
    readonly store: ObjectStore,
    private readonly closeStore: () => void,
    /** Where the catalog's index goes. */
    private readonly indexDir: string,
    /** The staging catalog: its local directory (index) and its store's root. */
    private readonly stagingDir: string,
    private readonly stagingStore: string,
    /** Directories the import made (the index's, the store root): a failure removes them. */
    private readonly made: string[],
    /** Whether the target store is a directory (entries renamed in) or not (objects created). */
    private readonly local: string | undefined,
  ) {}

  /**
   * Opens the store `opts` name and refuses one that holds a catalog, or what a catalog leaves (an index
   * where the index goes): import makes a new catalog. Makes the staging directories.
   */
  static async create(opts: EngineOptions): Promise<Stage> {
    const { store, owned } = openStore(opts, Math.random);
    const close = () => (owned ? store.close?.() : undefined);
    try {
      const indexDir = path.join(opts.dir, 'index');
      if (await exists(indexDir)) {
        if ((await readdir(indexDir).catch(() => [''])).length > 0) throw taken(`${indexDir} already holds an index`);
      }
      const local = store.localRoot;
      if (local !== undefined) {
        for (const name of CATALOG_ENTRIES) if (await exists(path.join(local, name))) throw taken(`${store.description} already holds ${name}`);
      } else {
        if (store instanceof S3Store) await store.assertConditionalWrites();
        for (const name of CATALOG_ENTRIES) {
          if ((await store.get(name)) !== undefined) throw taken(`${store.description} already holds ${name}`);
          for await (const o of store.list(`${name}/`)) throw taken(`${store.description} already holds ${o.key}`);
        }
      }
      const suffix = `.strata-import-${randomHex(6)}`;
      const stagingDir = path.join(opts.dir, suffix);
      const stagingStore = local === undefined ? path.join(stagingDir, 'store') : path.join(local, suffix);
      const made = [...new Set([...(await missingDirs(opts.dir)), ...(local === undefined ? [] : await missingDirs(local))])];
      await mkdir(stagingDir, { recursive: true });
      await mkdir(stagingStore, { recursive: true });
      return new Stage(store, close, indexDir, stagingDir, stagingStore, made, local);
    } catch (e) {
      close();
      throw e;
    }
  }

  /**
   * How to open the catalog the import builds: the caller's options (its limits, its data path, its clock's
   * bound) but in the staging directories, with the target's layout, no syncs and no automatic checkpoints.
   */
  stagingOptions(opts: EngineOptions): EngineOptions {
    const { exclusiveWriter: _exclusive, followIntervalMs: _follow, durability: _durability, clock: _clock, ...kept } = opts;
    return {
      ...kept,
      // Another store's log is objects (S3's is), whatever a local directory would default to.
      ...(this.local === undefined ? { logLayout: 'objects' } : {}),
      dir: this.stagingDir,
      store: { path: this.stagingStore },
      durability: 'relaxed',
      checkpointEvery: 0,
      create: true,
    };
  }

  /** Moves the built catalog (closed) into place: its store's entries, then its index. */
  async publish(): Promise<void> {
    if (this.local !== undefined) await this.renameIn(this.local);
    else await this.createIn();
    await rename(path.join(this.stagingDir, 'index'), this.indexDir).catch((e: NodeJS.ErrnoException) => {
      throw new StrataError('STORE_UNAVAILABLE', `the imported catalog's index could not be moved to ${this.indexDir}: ${e.message}`, { cause: e });
    });
    await syncPath(path.dirname(this.indexDir));
    await rm(this.stagingDir, { recursive: true, force: true });
    if (this.local !== undefined) await rm(this.stagingStore, { recursive: true, force: true });
    this.closeStore();
  }

  /** A directory store: every entry of the staging root renamed into the root, the log, then its layout record last. */
  private async renameIn(root: string): Promise<void> {
    await syncTree(this.stagingStore);
    const names = await readdir(this.stagingStore);
    const order = [...names.filter((n) => n !== LAYOUT && !LOGS.has(n)), ...names.filter((n) => LOGS.has(n)), ...names.filter((n) => n === LAYOUT)];
    for (const name of order) {
      const from = path.join(this.stagingStore, name);
      const to = path.join(root, name);
      try {
        // A file is linked (which fails if the name exists), a directory renamed (which fails unless the name is free or an empty directory).
        if ((await stat(from)).isDirectory()) await rename(from, to);
        else {
          await link(from, to);
          await unlink(from);
        }
      } catch (e) {
        throw new StrataError('ALREADY_EXISTS', `the imported catalog could not be moved into ${root}: ${name} (${(e as Error).message}); another catalog was made there meanwhile?`, { cause: e });
      }
      this.published.push(to);
    }
    await syncPath(root);
  }

  /** Another store: every staging object created in it, log entry 1 — the catalog's existence — last but the layout record. */
  private async createIn(): Promise<void> {
    const staged = new DirectoryStore(this.stagingStore, { sync: false });
    const first = logObjectKey(kvSeq(1));
    const keys: string[] = [];
    for await (const o of staged.list('')) keys.push(o.key);
    const order = [...keys.filter((k) => k !== first && k !== LAYOUT), ...keys.filter((k) => k === first), ...keys.filter((k) => k === LAYOUT)];
    for (const key of order) {
      if (!(await this.store.putIfAbsent(key, (await staged.get(key))!))) {
        throw new StrataError('ALREADY_EXISTS', `${this.store.description} already holds ${key}, where the imported catalog goes; another catalog was made there meanwhile?`);
      }
      this.published.push(key);
      if (key === first) this.publishedFirst = true;
    }
  }

  /**
   * Leaves nothing of a failed import: what the publish moved, the data objects it created (`created`), the
   * staging directories and the directories it made.
   */
  async discard(created: readonly string[]): Promise<void> {
    try {
      if (this.local !== undefined) for (const p of this.published.reverse()) await rm(p, { recursive: true, force: true });
      else {
        // Entry 1 first, in a call of its own (a store deletes a call's keys in no order): the catalog goes
        // before the rest of what it was made of.
        const first = logObjectKey(kvSeq(1));
        if (this.publishedFirst) await this.store.delete([first]);
        await this.store.delete(this.published.filter((k) => k !== first));
      }
      await this.store.delete(created);
    } finally {
      await rm(this.stagingDir, { recursive: true, force: true });
      if (this.local !== undefined) await rm(this.stagingStore, { recursive: true, force: true });
      for (const d of [...this.made].reverse()) await rm(d, { recursive: true, force: true });
      this.closeStore();
    }
  }
}

const taken = (what: string) => new StrataError('ALREADY_EXISTS', `${what}; import makes a new catalog: give a new dir (and store)`);
