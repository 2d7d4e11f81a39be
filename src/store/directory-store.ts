// The embedded default store: a local (or shared, e.g. NFS) directory. Create-if-absent is a hard link from
// a fully written, fsync'd temporary file to the final name: link(2) fails with EEXIST if the name exists,
// so exactly one racer wins, and the final name never points at a partial object.
import * as fsSync from 'node:fs';
import { constants as fsc, existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import { promisify } from 'node:util';
import * as path from 'node:path';
import { StrataError } from '../errors.js';
import { inParallel } from '../in-parallel.js';
import { makeDirs } from '../make-dirs.js';
import { fileSystemProblem } from '../messages.js';
import { StoreClock } from './store-clock.js';
import { assertValidObjectKey, MAX_OBJECT_KEY, type ObjectInfo, type ObjectStore } from './object-store.js';
import { randomHex } from '../random.js';

const TMP_PREFIX = '.tmp-';

/** Objects one delete call removes at once. */
const DELETES_AT_ONCE = 8;

/**
 * A failed operation as STORE_UNAVAILABLE naming it; where the file system said why (a read-only mount, a full
 * disk, a permission), what to do about it in a store. Another StrataError (from makeDirs: a file in the way)
 * already says both.
 */
function unavailable(op: string, key: string, given: unknown): StrataError {
  const e = given instanceof StrataError && fileSystemProblem(given.cause) !== undefined ? given.cause : given;
  if (e instanceof StrataError) return e;
  const problem = fileSystemProblem(e);
  const advice =
    problem === undefined
      ? ''
      : (e as NodeJS.ErrnoException).code === 'EROFS'
        ? ` (${problem}: a catalog that writes needs its store writable; to read this one, open it read-only — Catalog.open({ readOnly: true }), strata --read-only)`
        : ` (${problem})`;
  return new StrataError('STORE_UNAVAILABLE', `directory store: ${op} ${JSON.stringify(key)} failed: ${(e as Error).message}${advice}`, {
    cause: e,
  });
}

const fdatasync = promisify(fsSync.fdatasync);
const fsync = promisify(fsSync.fsync);

function writeAllSync(fd: number, body: Uint8Array): void {
  for (let at = 0; at < body.length; ) at += fsSync.writeSync(fd, body, at, body.length - at);
}

/** Opened and closed synchronously, like the other metadata calls of a create: only the sync waits on the disk. */
async function fsyncDir(dir: string): Promise<void> {
  const fd = fsSync.openSync(dir, fsc.O_RDONLY);
  try {
    await fsync(fd);
  } finally {
    fsSync.closeSync(fd);
  }
}

/** A file's modification time; +Infinity if it is gone (nothing to sweep). */
async function mtimeMs(file: string): Promise<number> {
  try {
    return (await fs.stat(file)).mtimeMs;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return Number.POSITIVE_INFINITY;
    throw e;
  }
}

export interface DirectoryStoreOptions {
  /**
   * true (default): a created object is on disk (its data and its directory entry fsync'd, and the entries
   * of directories made for it) before putIfAbsent returns. false is the opt-in relaxed mode: directory
   * entries are not fsync'd, so a machine crash (not a process crash) may lose the newest objects. Their
   * data is synced even so, before they get their names: otherwise a crash could keep a name and lose its
   * data (ext4's delayed allocation leaves empty files behind), and an empty log entry cannot be told from a
   * damaged one, so the catalog would not open again.
   */
  sync?: boolean;
}

export class DirectoryStore implements ObjectStore {
  readonly description: string;
  readonly maxKeyBytes: number;
  readonly localRoot: string;
  private readonly sync: boolean;
  private readonly clock = new StoreClock();
  /** Directories known to exist: creating objects in them needs no mkdir (a round trip each). */
  private readonly made = new Set<string>();
  /**
   * Temporary names are this prefix (random per instance, so processes sharing the directory never pick
   * the same one) and a counter: random bytes per create cost ~5 µs. Drawn at the first create, since a
   * store that only reads never needs one.
   */
  private tmpPrefix: string | undefined;
  private tmpCount = 0;

  constructor(
    readonly root: string,
    options: DirectoryStoreOptions = {},
  ) {
    // A URL given for a path would become a directory named after its scheme (`s3:`), reported as the store.
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(root);
    if (scheme !== null) {
      throw new StrataError(
        'INVALID_ARGUMENT',
        `the directory store's path ${JSON.stringify(root)} is a ${scheme[1]}:// URL, not a directory; ` +
          (scheme[1]!.toLowerCase() === 's3' ? 'an S3 store is { s3: { bucket, prefix } }' : 'give the path of a directory'),
      );
    }
    this.root = path.resolve(root);
    this.localRoot = this.root;
    // PATH_MAX (4,096 with its NUL) less the root and its separator, and never past what a key may be: a longer
    // data file path was accepted by the catalog and then refused by every read and every delete of it.
    this.maxKeyBytes = Math.min(MAX_OBJECT_KEY, 4095 - Buffer.byteLength(this.root) - 1);
    this.sync = options.sync ?? true;
    this.description = `directory ${this.root}${this.sync ? '' : ' (relaxed durability)'}`;
  }

  private file(key: string): string {
    assertValidObjectKey(key);
    // A valid key has no empty, '.' or '..' segment, so it appends to the root as it is.
    return `${this.root}${path.sep}${path.sep === '/' ? key : key.split('/').join(path.sep)}`;
  }

  url(key: string): string {
    return this.file(key);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const file = this.file(key);
    // Most gets during catch-up probe for an entry that does not exist yet: answer those without a trip
    // through the thread pool.
    if (!existsSync(file)) return undefined;
    try {
      return await fs.readFile(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw unavailable('get', key, e);
    }
  }

  // The steps of a create that are metadata calls (open, write a small body, close, link, unlink) are made
  // synchronously: on a local disk each takes microseconds, while a round trip through libuv's thread pool
  // costs several times that (measured: 50 µs against 250 µs for the five). The fsyncs, which take
  // milliseconds, stay asynchronous so the event loop keeps running while the disk works.
  async putIfAbsent(key: string, body: Uint8Array): Promise<boolean> {
    return this.viaTemp('create', key, body, (tmp, file) => {
      let created = true;
      try {
        fsSync.linkSync(tmp, file);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        created = false;
      }
      fsSync.unlinkSync(tmp);
      return created;
    });
  }

  /** A fully written, fdatasync'd temporary file renamed over the name: rename(2) is atomic. */
  async replace(key: string, body: Uint8Array): Promise<void> {
    await this.viaTemp('replace', key, body, (tmp, file) => {
      fsSync.renameSync(tmp, file);
      return true;
    });
  }

  /**
   * Writes `body` to a temporary file beside `key`'s file, lets `name` give it the key's name (true if it
   * did), and, when it did and the store is durable, fsyncs the directory: a name is durable only once its
   * directory entry is. The temporary file never outlives a failure.
   */
  private async viaTemp(op: string, key: string, body: Uint8Array, name: (tmp: string, file: string) => boolean): Promise<boolean> {
    const file = this.file(key);
    const dir = path.dirname(file);
    let tmp: string | undefined;
    try {
      tmp = await this.writeTemp(dir, body);
      const named = name(tmp, file);
      tmp = undefined;
      if (named && this.sync) await fsyncDir(dir);
      return named;
    } catch (e) {
      if (tmp !== undefined) fsSync.rmSync(tmp, { force: true });
      throw unavailable(op, key, e);
    }
  }

  /** A new temporary file in `dir` holding `body`, fdatasync'd (in either mode); removed again if that fails. */
  private async writeTemp(dir: string, body: Uint8Array): Promise<string> {
    const tmp = `${dir}${path.sep}${(this.tmpPrefix ??= `${TMP_PREFIX}${randomHex(8)}-`)}${++this.tmpCount}`;
    try {
      const fd = await this.createTemp(dir, tmp);
      try {
        writeAllSync(fd, body);
        await fdatasync(fd);
        // The file system's clock, which is a shared directory's server's: what snapshot times are checked by.
        this.clock.observe(fsSync.fstatSync(fd).mtimeMs);
      } finally {
        fsSync.closeSync(fd);
      }
      return tmp;
    } catch (e) {
      fsSync.rmSync(tmp, { force: true });
      throw e;
    }
  }

  /**
   * Opens a new temporary file in `dir`, creating the directory the first time, or again when it was
   * removed (another process's delete() removes directories it leaves empty, possibly between our mkdir
   * and our open).
   */
  private async createTemp(dir: string, tmp: string): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      if (this.made.has(dir)) {
        try {
          return fsSync.openSync(tmp, 'wx');
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 3) throw e;
          this.made.delete(dir);
        }
      }
      await this.makeDir(dir);
    }
  }

  /**
   * Makes `dir` and whatever is missing above it. In durable mode a new directory is durable only once its
   * parent is fsync'd, so before `dir` counts as made, the parent of every level is synced: up to the root
   * even where mkdir found a level already there (mkdir tells which directories it made, not whether
   * another writer, or a concurrent create in this store, made one a moment ago and has not synced it yet),
   * and above the root only as far as mkdir made them. Once per directory per store (again after a
   * delete removed it): cheap.
   */
  private async makeDir(dir: string): Promise<void> {
    const first = makeDirs(dir);
    if (this.sync) {
      const above = first !== undefined && first.length <= this.root.length ? first.length : Number.POSITIVE_INFINITY;
      for (let d = dir; d.length > this.root.length || d.length >= above; d = path.dirname(d)) await fsyncDir(path.dirname(d));
    }
    this.made.add(dir);
  }

  async *list(prefix: string, options: { startAfter?: string } = {}): AsyncIterable<ObjectInfo> {
    // Walk only the directory that can hold the prefix; sort each level so keys come out in byte order.
    const slash = prefix.lastIndexOf('/');
    const base = slash < 0 ? '' : prefix.slice(0, slash);
    const startDir = base === '' ? this.root : this.file(base);
    // Byte order, as the walk's: JavaScript's own string order puts U+E000–U+FFFF after astral characters.
    const after = options.startAfter === undefined ? undefined : Buffer.from(options.startAfter);
    for await (const key of this.walk(startDir, base)) {
      if (!key.startsWith(prefix)) continue;
      if (after !== undefined && Buffer.compare(Buffer.from(key), after) <= 0) continue;
      let stat: import('node:fs').Stats;
      try {
        stat = await fs.lstat(this.file(key));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue; // deleted while listing
        throw unavailable('list', key, e);
      }
      yield { key, lastModified: stat.mtimeMs, size: stat.size };
    }
  }

  private async *walk(dir: string, keyPrefix: string): AsyncGenerator<string> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return;
      throw unavailable('list', keyPrefix, e);
    }
    // A directory `a` holds keys `a/…`, which sort after a sibling file `a` but must interleave with siblings
    // like `a-b` by byte order: sort by the name each entry contributes to keys ("a/" for a directory).
    const named = entries
      .filter((d) => !d.name.startsWith('.'))
      .map((d) => ({ d, sortName: Buffer.from(d.isDirectory() ? `${d.name}/` : d.name) }))
      .sort((x, y) => Buffer.compare(x.sortName, y.sortName));
    for (const { d } of named) {
      const key = keyPrefix === '' ? d.name : `${keyPrefix}/${d.name}`;
      if (d.isDirectory()) yield* this.walk(path.join(dir, d.name), key);
      else if (d.isFile()) yield key;
    }
  }

  /** Temporary files of creates that a crash cut short: the listing never shows them, nothing else removes them. */
  async sweep(before: number, dryRun: boolean): Promise<string[]> {
    const left: string[] = [];
    const visit = async (dir: string): Promise<void> => {
      let entries: import('node:fs').Dirent[];
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // removed meanwhile (a pruned checkpoint)
        throw unavailable('sweep', path.relative(this.root, dir), e);
      }
      for (const d of entries) {
        const full = path.join(dir, d.name);
        if (d.isDirectory()) await visit(full);
        else if (d.isFile() && d.name.startsWith(TMP_PREFIX) && (await mtimeMs(full)) < before) left.push(full);
      }
    };
    await visit(this.root);
    if (!dryRun) {
      for (const f of left) await fs.rm(f, { force: true }).catch((e: unknown) => Promise.reject(unavailable('sweep', path.relative(this.root, f), e)));
    }
    return left.map((f) => path.relative(this.root, f).split(path.sep).join('/')).sort();
  }

  clockNow(): number | undefined {
    return this.clock.now();
  }

  async readClock(): Promise<void> {
    try {
      makeDirs(this.root);
      // A temporary file: one a crash leaves behind is swept like any other.
      fsSync.rmSync(await this.writeTemp(this.root, new Uint8Array(0)), { force: true });
    } catch (e) {
      throw unavailable('write a clock probe into', this.root, e);
    }
  }

  async info(key: string): Promise<ObjectInfo | undefined> {
    try {
      const stat = await fs.lstat(this.file(key));
      return { key, lastModified: stat.mtimeMs, size: stat.size };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
      throw unavailable('info', key, e);
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    const dirs = new Set<string>();
    const real = new Set<string>(); // directories checked to be directories, not links
    // Several at once: each is a few system calls on the thread pool, and a dropped table is thousands.
    await inParallel(keys, DELETES_AT_ONCE, async (key) => {
      const file = this.file(key);
      await this.assertNoLinkAbove(key, file, real);
      try {
        await fs.rm(file, { force: true });
      } catch (e) {
        throw unavailable('delete', key, e);
      }
      for (let d = path.dirname(file); d.length > this.root.length; d = path.dirname(d)) dirs.add(d);
    });
    // Directories left empty go too (a pruned checkpoint, a reclaimed partition), deepest first. A writer
    // that had one in `made` finds it gone at its next create and makes it again (createTemp).
    for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
      try {
        await fs.rmdir(d);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw unavailable('delete', d, e);
      }
    }
  }

  /**
   * Refuses a key whose path goes through a symbolic link (someone linked a directory of the data path
   * elsewhere): deleting through it would delete outside the store. The object itself may be a link;
   * removing it removes the link alone.
   */
  private async assertNoLinkAbove(key: string, file: string, real: Set<string>): Promise<void> {
    const above: string[] = [];
    for (let d = path.dirname(file); d.length > this.root.length; d = path.dirname(d)) above.unshift(d);
    for (const d of above) {
      if (real.has(d)) continue;
      let stat: import('node:fs').Stats;
      try {
        stat = await fs.lstat(d);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // nothing below it to delete
        throw unavailable('delete', key, e);
      }
      if (!stat.isDirectory()) {
        throw new StrataError(
          'INVALID_ARGUMENT',
          `${key} is not deleted: ${path.relative(this.root, d)} in ${this.description} is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}, ` +
            'and Strata never deletes through one (it could lead outside the store); remove the object by hand if it should go',
        );
      }
      real.add(d);
    }
  }
}
