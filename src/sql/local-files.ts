// Where DuckDB reads a file the catalog names: on a directory store, the store's own file; on S3 (no
// extension can be downloaded here), a copy fetched through the catalog's object store into a local cache
// keyed by path. Files are immutable, so a cached copy never goes stale; the cache is bounded by size,
// evicting the least recently used copies no running query holds, and a fetch is written to a temporary
// name and renamed, so a partial download never becomes an entry.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rename, rm, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { StrataError } from '../errors.js';
import { makeDirs } from '../make-dirs.js';
import type { ObjectStore } from '../store/object-store.js';

export interface LocalFilesOptions {
  /** Where fetched copies live (default `<dir>/cache`). */
  cacheDir: string;
  /** At most this many bytes of copies are kept (default 1 GiB); one file larger than it is still fetched. */
  maxCacheBytes: number;
}

/** The files one query reads, held until it is done (a held copy is never evicted). */
export interface Held {
  readonly paths: string[];
  release(): void;
}

export class LocalFiles {
  /** Copies by key, least recently used first, with their size and how many queries hold them. */
  private readonly copies = new Map<string, { bytes: number; holds: number }>();
  private bytes = 0;
  private readonly fetching = new Map<string, Promise<void>>();

  constructor(
    private readonly store: ObjectStore,
    private readonly opts: LocalFilesOptions,
  ) {}

  /** Local paths for the store keys, held until `release()`. */
  async hold(keys: readonly string[]): Promise<Held> {
    const held: string[] = [];
    const release = () => {
      for (const k of held) {
        const c = this.copies.get(k);
        if (c) c.holds--;
      }
      held.length = 0;
    };
    const paths: string[] = [];
    try {
      for (const key of keys) {
        const direct = this.store.url(key);
        if (path.isAbsolute(direct)) {
          paths.push(direct); // a directory store: DuckDB reads the store's file itself
          continue;
        }
        await this.fetch(key);
        const c = this.copies.get(key)!;
        c.holds++;
        held.push(key);
        this.touch(key);
        paths.push(this.cached(key));
      }
    } catch (e) {
      release();
      throw e;
    }
    await this.evict();
    return { paths, release };
  }

  private cached(key: string): string {
    return path.join(this.opts.cacheDir, key);
  }

  private touch(key: string): void {
    const c = this.copies.get(key)!;
    this.copies.delete(key);
    this.copies.set(key, c);
  }

  private fetch(key: string): Promise<void> {
    if (this.copies.has(key)) return Promise.resolve();
    let p = this.fetching.get(key);
    if (!p) {
      p = this.download(key).finally(() => this.fetching.delete(key));
      this.fetching.set(key, p);
    }
    return p;
  }

  private async download(key: string): Promise<void> {
    const file = this.cached(key);
    if (!existsSync(file)) {
      const body = await this.store.get(key);
      if (body === undefined) {
        throw new StrataError('CORRUPT', `${this.store.url(key)}, a file the catalog names, is missing from ${this.store.description}; strata verify --files lists what else is`);
      }
      makeDirs(path.dirname(file));
      const tmp = `${file}.${randomBytes(6).toString('hex')}.part`;
      await writeFile(tmp, body);
      await rename(tmp, file);
      this.bytes += body.length;
      this.copies.set(key, { bytes: body.length, holds: 0 });
    } else {
      const { size } = await stat(file); // fetched by an earlier process
      this.bytes += size;
      this.copies.set(key, { bytes: size, holds: 0 });
    }
  }

  private async evict(): Promise<void> {
    for (const [key, c] of this.copies) {
      if (this.bytes <= this.opts.maxCacheBytes) return;
      if (c.holds > 0) continue;
      this.copies.delete(key);
      this.bytes -= c.bytes;
      await rm(this.cached(key), { force: true });
    }
  }
}
