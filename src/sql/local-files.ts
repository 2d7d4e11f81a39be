// Where DuckDB reads a file the catalog names: on a directory store, the store's own file; on S3 (no
// extension can be downloaded here), a copy fetched through the catalog's object store into a local cache
// keyed by path. Files are immutable, so a cached copy never goes stale; the cache is bounded by size,
// evicting the least recently used copies no running query holds, and a fetch is written to a temporary
// name and renamed, so a partial download never becomes an entry.
//
// Parquet pages carry no checksum DuckDB checks: a flipped byte inside a page that still decodes would be
// a different answer. So the first time this process reads a file, its bytes are checked against the size
// and CRC-32 the catalog recorded (decision 0013): on a directory store by reading the file once, on S3 as
// the copy is fetched (and a copy an earlier process left in the cache before it is used).
import { existsSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { StrataError } from '../errors.js';
import { makeDirs } from '../make-dirs.js';
import type { ObjectStore } from '../store/object-store.js';
import { bodyMismatch, localMismatch, type RecordedFile } from '../store/recorded-bytes.js';
import { randomHex } from '../random.js';

export interface LocalFilesOptions {
  /** Where fetched copies live (default `<dir>/cache`). */
  cacheDir: string;
  /** At most this many bytes of copies are kept (default 1 GiB); one file larger than it is still fetched. */
  maxCacheBytes: number;
}

/** A data or delete file row as a file to hold: its key under the data path and its recorded bytes. */
export const recordedFile = (dataPath: string, f: { path: string; fileSizeBytes: number; contentCrc32: number | null }): RecordedFile => ({
  key: `${dataPath}${f.path}`,
  fileSizeBytes: f.fileSizeBytes,
  contentCrc32: f.contentCrc32,
});

/** What names a file's bytes, for what this process remembers of them: its key and what the catalog records of them. */
export const identityOf = (f: RecordedFile) => `${f.key}/${f.fileSizeBytes}/${f.contentCrc32}`;

/** The files one query reads, held until it is done (a held copy is never evicted). */
export interface Held {
  readonly paths: string[];
  release(): void;
}

export class LocalFiles {
  /** Copies by key, least recently used first, with their size and how many queries hold them. */
  private readonly copies = new Map<string, { bytes: number; holds: number }>();
  private bytes = 0;
  /** By key, the records (size and CRC) this process has checked the key's bytes against, or is checking. */
  private readonly checked = new Map<string, Map<string, Promise<void>>>();

  constructor(
    private readonly store: ObjectStore,
    private readonly opts: LocalFilesOptions,
  ) {}

  /**
   * Local paths for the files, held until `release()`, given only once their bytes checked out (once per
   * process and record): DuckDB never reads a damaged file first, since it can crash the process on one
   * (decision 0024). A fetched copy is checked as it arrives; a directory store's own file where it lies.
   */
  async hold(files: readonly RecordedFile[]): Promise<Held> {
    const held: string[] = [];
    const release = () => {
      for (const k of held) {
        const c = this.copies.get(k);
        if (c) c.holds--;
      }
      held.length = 0;
    };
    const paths: string[] = [];
    const inPlace: { file: RecordedFile; local: string }[] = [];
    try {
      for (const file of files) {
        const direct = this.store.url(file.key);
        if (path.isAbsolute(direct)) {
          inPlace.push({ file, local: direct });
          paths.push(direct); // a directory store: DuckDB reads the store's file itself
          continue;
        }
        let c;
        do await this.once(file, () => this.fetch(file));
        while (!(c = this.copies.get(file.key))); // evicted meanwhile by another query: fetched again
        c.holds++;
        held.push(file.key);
        this.touch(file.key);
        paths.push(this.cached(file.key));
      }
      await this.evict();
      for (const { file, local } of inPlace) await this.once(file, () => this.check(file, local, local));
    } catch (e) {
      release();
      throw e;
    }
    return { paths, release };
  }

  /**
   * `work` once per file record while it succeeds: two rows naming one path with different sizes or CRCs are
   * each checked (one of them is wrong). A copy evicted since is fetched, and checked, again.
   */
  private once(file: RecordedFile, work: () => Promise<void>): Promise<void> {
    let byRecord = this.checked.get(file.key);
    if (!byRecord) this.checked.set(file.key, (byRecord = new Map()));
    const record = `${file.fileSizeBytes}/${file.contentCrc32}`;
    let p = byRecord.get(record);
    if (!p) {
      p = work();
      byRecord.set(record, p);
      p.catch(() => byRecord.delete(record));
    }
    return p;
  }

  private async check(file: RecordedFile, local: string, named: string): Promise<void> {
    const wrong = await localMismatch(file, local).catch((e: NodeJS.ErrnoException) => {
      throw e.code === 'ENOENT' ? missing(named, this.store.description) : e;
    });
    if (wrong !== undefined) throw damaged(named, wrong);
  }

  private cached(key: string): string {
    return path.join(this.opts.cacheDir, key);
  }

  private touch(key: string): void {
    const c = this.copies.get(key)!;
    this.copies.delete(key);
    this.copies.set(key, c);
  }

  private async fetch(file: RecordedFile): Promise<void> {
    const local = this.cached(file.key);
    if (this.copies.has(file.key)) return this.check(file, local, this.store.url(file.key)); // checked against another row
    if (existsSync(local)) {
      // Fetched by an earlier process: used once its bytes check out, fetched again when they do not.
      const ok = await this.check(file, local, local).then(
        () => true,
        () => false,
      );
      if (ok) return this.add(file.key, file.fileSizeBytes);
      await rm(local, { force: true });
    }
    const body = await this.store.get(file.key);
    const named = this.store.url(file.key);
    if (body === undefined) throw missing(named, this.store.description);
    const wrong = bodyMismatch(file, body);
    if (wrong !== undefined) throw damaged(named, wrong);
    makeDirs(path.dirname(local));
    const tmp = `${local}.${randomHex(6)}.part`;
    await writeFile(tmp, body);
    await rename(tmp, local);
    this.add(file.key, body.length);
  }

  private add(key: string, bytes: number): void {
    this.bytes += bytes;
    this.copies.set(key, { bytes, holds: 0 });
  }

  private async evict(): Promise<void> {
    for (const [key, c] of this.copies) {
      if (this.bytes <= this.opts.maxCacheBytes) return;
      if (c.holds > 0) continue;
      this.copies.delete(key);
      this.checked.delete(key);
      this.bytes -= c.bytes;
      await rm(this.cached(key), { force: true });
    }
  }
}

const missing = (named: string, store: string) =>
  new StrataError('CORRUPT', `${named}, a file the catalog names, is missing from ${store}; strata verify --files lists what else is`);

const damaged = (named: string, wrong: string) =>
  new StrataError('CORRUPT', `${named}, a file the catalog names, is not the file it recorded: ${wrong}. It was damaged or replaced after it was written; restore it from a copy (strata verify --files lists every such file)`);
