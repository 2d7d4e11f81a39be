// The cache of files fetched from a remote store: keyed by path, bounded by size (least recently used
// first, never a copy a running query holds), and a fetch that fails leaves no entry behind.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DirectoryStore } from '../../src/store/directory-store.js';
import type { ObjectStore } from '../../src/store/object-store.js';
import { LocalFiles } from '../../src/sql/local-files.js';
import { localMismatch, type RecordedFile } from '../../src/store/recorded-bytes.js';
import { tempDir } from '../helpers.js';

/** A directory store that says its objects are remote, so they go through the cache. */
function remote(inner: ObjectStore, failGet?: (key: string) => boolean): ObjectStore {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'url') return (key: string) => `remote://${key}`;
      if (prop === 'get') return async (key: string) => {
        if (failGet?.(key)) throw new Error(`connection reset fetching ${key}`);
        return target.get(key);
      };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** A file as the catalog records it: `size` bytes, each the key's first letter after `data/`. */
const rec = (key: string, size = 1000, crc: number | null = crc32(new Uint8Array(size).fill(key.charCodeAt(5)))): RecordedFile => ({ key, fileSizeBytes: size, contentCrc32: crc });

describe('the local file cache', () => {
  it('evicts least recently used copies past its size, never a held one, and fetches again on demand', async () => {
    const store = new DirectoryStore(await tempDir());
    for (const k of ['a', 'b', 'c', 'd']) await store.putIfAbsent(`data/${k}.parquet`, new Uint8Array(1000).fill(k.charCodeAt(0)));
    const cacheDir = await tempDir();
    const files = new LocalFiles(remote(store), { cacheDir, maxCacheBytes: 2500 });
    const ab = await files.hold([rec('data/a.parquet'), rec('data/b.parquet')]);
    const c = await files.hold([rec('data/c.parquet')]); // 3,000 bytes, but a and b are held
    expect(['a', 'b', 'c'].map((k) => existsSync(path.join(cacheDir, 'data', `${k}.parquet`)))).toEqual([true, true, true]);
    ab.release();
    c.release();
    const d = await files.hold([rec('data/d.parquet')]); // a, the least recently used, goes
    expect(['a', 'b', 'c', 'd'].map((k) => existsSync(path.join(cacheDir, 'data', `${k}.parquet`)))).toEqual([false, false, true, true]);
    d.release();
    const again = await files.hold([rec('data/a.parquet')]);
    expect(again.paths[0]).toBe(path.join(cacheDir, 'data', 'a.parquet'));
    expect(existsSync(again.paths[0]!)).toBe(true);
    again.release();
  });

  it('a fetch that fails leaves no entry and no partial file; a missing object is CORRUPT naming it', async () => {
    const store = new DirectoryStore(await tempDir());
    await store.putIfAbsent('data/x.parquet', new Uint8Array(10));
    const cacheDir = await tempDir();
    let fail = true;
    const files = new LocalFiles(remote(store, () => fail), { cacheDir, maxCacheBytes: 1e6 });
    await expect(files.hold([rec('data/x.parquet', 10, crc32(new Uint8Array(10)))])).rejects.toThrow(/connection reset/);
    expect(readdirSync(cacheDir)).toEqual([]);
    fail = false;
    expect(existsSync((await files.hold([rec('data/x.parquet', 10, crc32(new Uint8Array(10)))])).paths[0]!)).toBe(true);
    await expect(files.hold([rec('data/gone.parquet')])).rejects.toMatchObject({ code: 'CORRUPT', message: expect.stringContaining('gone.parquet') });
  });

  it('a fetched copy whose bytes are not the recorded ones is CORRUPT naming the object and never cached; a damaged copy in the cache is fetched again', async () => {
    const store = new DirectoryStore(await tempDir());
    await store.putIfAbsent('data/a.parquet', new Uint8Array(1000).fill(97));
    const cacheDir = await tempDir();
    const files = new LocalFiles(remote(store), { cacheDir, maxCacheBytes: 1e6 });
    await expect(files.hold([rec('data/a.parquet', 1000, 12345)])).rejects.toMatchObject({ code: 'CORRUPT', message: expect.stringMatching(/remote:\/\/data\/a\.parquet.*CRC-32 00003039/) });
    await expect(files.hold([rec('data/a.parquet', 999)])).rejects.toMatchObject({ code: 'CORRUPT', message: expect.stringContaining('records 999 bytes; the file has 1000') });
    expect(readdirSync(cacheDir)).toEqual([]);
    const held = await files.hold([rec('data/a.parquet')]);
    held.release();
    // A later process finds the copy damaged in the cache: it fetches the store's again rather than read it.
    const copy = path.join(cacheDir, 'data', 'a.parquet');
    writeFileSync(copy, new Uint8Array(1000).fill(98));
    const later = new LocalFiles(remote(store), { cacheDir, maxCacheBytes: 1e6 });
    const again = await later.hold([rec('data/a.parquet')]);
    expect(readFileSync(again.paths[0]!)).toEqual(Buffer.from(new Uint8Array(1000).fill(97)));
  });
});

describe('localMismatch', () => {
  it('a file DuckDB reads in place is checked before its path is given: a damaged one never reaches DuckDB', async () => {
    // DuckDB can crash the process on a damaged Parquet page (a segfault, exit 139, twice in 3,000 one-byte
    // flips of a 1,000-row file read while the check ran beside it): the check must come first.
    const store = new DirectoryStore(await tempDir());
    await store.putIfAbsent('data/x.parquet', new Uint8Array(1000).fill(120));
    const files = new LocalFiles(store, { cacheDir: await tempDir(), maxCacheBytes: 1e6 });
    const wrong = rec('data/x.parquet', 1000, (crc32(new Uint8Array(1000).fill(120)) + 1) >>> 0);
    await expect(files.hold([wrong])).rejects.toMatchObject({ code: 'CORRUPT', message: expect.stringMatching(/x\.parquet/) });
    const held = await files.hold([rec('data/x.parquet')]);
    expect(held.paths).toEqual([store.url('data/x.parquet')]);
    held.release();
  });

  it('checks a file of several read chunks to its last byte: a flip in any chunk, a byte more or less', async () => {
    const dir = await tempDir();
    const bytes = new Uint8Array((5 << 19) + 123).map((_, i) => (i * 31) & 0xff); // 2.5 MiB and a bit: three chunks
    const file: RecordedFile = { key: 'data/f.parquet', fileSizeBytes: bytes.length, contentCrc32: crc32(bytes) };
    const local = path.join(dir, 'f.parquet');
    writeFileSync(local, bytes);
    expect(await localMismatch(file, local)).toBeUndefined();
    for (const at of [0, (1 << 20) + 5, bytes.length - 1]) {
      const flipped = bytes.slice();
      flipped[at] = flipped[at]! ^ 0x10;
      writeFileSync(local, flipped);
      expect(await localMismatch(file, local), `flip at ${at}`).toContain('CRC-32');
    }
    for (const wrong of [bytes.subarray(0, bytes.length - 1), Buffer.concat([bytes, new Uint8Array([0])])]) {
      writeFileSync(local, wrong);
      expect(await localMismatch(file, local)).toContain(`the file has ${wrong.length}`);
    }
  });
});
