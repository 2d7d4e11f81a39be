// An import's files: with copyFiles, copied from under the lake's own data path and nowhere else (no symbolic
// link out of it, not its root's whole file system), only regular Parquet files of the size and CRC-32 the lake
// records, into the new catalog's store through the ObjectStore, whatever its kind — a local directory, a
// store that is not one (S3's way), S3 itself. Issue 42: `data_path = '/'` landed the host's /etc/passwd in
// the store; into S3 nothing was copied and every read was then CORRUPT.
import { cpSync, existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog, DirectoryStore, type ObjectStore } from '../../src/index.js';
import { freshS3Store, s3Options } from '../store/s3-env.js';
import { type ExportedLake, exportedLake, listing, outcome, removeLake, tampered } from './lakes.js';

let lake: ExportedLake;
beforeAll(async () => {
  lake = await exportedLake();
}, 60_000);
afterAll(() => removeLake(lake));

let n = 0;
const fresh = (what: string) => path.join(lake.root, `${what}-${++n}`);

/** A copy of the lake's data directory, and the lake pointed at it. */
async function movedLake(sql = ''): Promise<{ file: string; data: string }> {
  const data = fresh('data');
  cpSync(lake.dataDir, data, { recursive: true });
  return { file: await tampered(lake, `UPDATE ducklake_metadata SET value = '${data}/' WHERE key = 'data_path'; ${sql}`), data };
}

const firstFile = "(SELECT path FROM ducklake_data_file WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file))";

/** A directory store seen as a store of objects only (no local root): what S3 is to the import. */
function objectsOnly(root: string): ObjectStore {
  const store = new DirectoryStore(root);
  return new Proxy(store, {
    get: (t, p) => {
      if (p === 'localRoot') return undefined;
      const v = Reflect.get(t, p) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

/** The count of rows the lake's tables hold at their newest snapshot, read through a catalog. */
async function counts(c: Catalog): Promise<unknown> {
  return (await c.sql('SELECT (SELECT count(*) FROM sales.orders2) AS orders, (SELECT sum(amount) FROM sales.orders2) AS amount')).rows;
}

describe('copyFiles', () => {
  it("refuses a lake whose data path is the file system's root: its rows could name any file of the machine", async () => {
    const file = await tampered(lake, `UPDATE ducklake_metadata SET value = '/' WHERE key = 'data_path'; UPDATE ducklake_data_file SET path = 'etc/passwd' WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)`);
    const dir = fresh('import');
    const { error } = await outcome(file, { dir, copyFiles: true });
    expect(error?.code).toBe('INVALID_ARGUMENT');
    expect(error?.message).toMatch(/the root of the file system/);
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a file that leads out of the data path by a symbolic link, even one with the recorded bytes', async () => {
    const { file, data } = await movedLake();
    const rel = (await import('better-sqlite3')).default(file, { readonly: true }).prepare(`SELECT ${firstFile} AS p`).get() as { p: string };
    const outside = fresh('outside.parquet');
    renameSync(path.join(data, rel.p), outside);
    symlinkSync(outside, path.join(data, rel.p));
    const dir = fresh('import');
    const { error } = await outcome(file, { dir, copyFiles: true });
    expect(error?.message).toMatch(/it leads to .*outside the lake's data path/);
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses what is not a regular Parquet file of the recorded size, even without a recorded CRC-32', async () => {
    const { file, data } = await movedLake('DELETE FROM strata_file');
    const rel = (await import('better-sqlite3')).default(file, { readonly: true }).prepare(`SELECT ${firstFile} AS p, file_size_bytes AS size FROM ducklake_data_file WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)`).get() as { p: string; size: number };
    writeFileSync(path.join(data, rel.p), Buffer.alloc(rel.size, 'x'));
    let { error } = await outcome(file, { dir: fresh('import'), copyFiles: true });
    expect(error?.message).toMatch(/it is not a Parquet file/);
    mkdirSync(path.join(data, `${rel.p}.d`));
    renameSync(path.join(data, rel.p), path.join(data, `${rel.p}.x`));
    renameSync(path.join(data, `${rel.p}.d`), path.join(data, rel.p));
    ({ error } = await outcome(file, { dir: fresh('import'), copyFiles: true }));
    expect(error?.message).toMatch(/it is not a regular file/);
  });

  it('into a store that is not a directory: files and catalog go through the ObjectStore; a refusal leaves it empty', async () => {
    const root = fresh('objects');
    const store = objectsOnly(root);
    const dir = fresh('import');
    const bad = await tampered(lake, "INSERT INTO strata_snapshot_tag VALUES ('late', 9999, '2026-01-01 00:00:00+00')");
    expect((await outcome(bad, { dir, store, copyFiles: true })).error?.code).toBe('SNAPSHOT_NOT_FOUND');
    expect(listing(root) ?? []).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    const { report, error } = await outcome(lake.file, { dir, store, copyFiles: true });
    expect(error).toBeUndefined();
    expect(report!.copiedFiles).toBeGreaterThan(0);
    const source = await Catalog.open({ dir: lake.catalogDir, create: false });
    const imported = await Catalog.open({ dir, store, create: false });
    try {
      expect(imported.storage().logLayout).toBe('objects');
      expect(await counts(imported)).toEqual(await counts(source));
      expect((await imported.verify({ files: true })).violations).toEqual([]);
    } finally {
      await source.close();
      await imported.close();
    }
  });

  const s3 = s3Options();
  it.skipIf(s3 === undefined)('into S3: the files are copied into the bucket, and every read answers as the lake does', { timeout: 120_000 }, async () => {
    const store = await freshS3Store(s3!);
    const dir = fresh('import');
    try {
      const { report, error } = await outcome(lake.file, { dir, store, copyFiles: true });
      expect(error).toBeUndefined();
      expect(report!.copiedFiles).toBeGreaterThan(0);
      const source = await Catalog.open({ dir: lake.catalogDir, create: false });
      const imported = await Catalog.open({ dir, store, create: false });
      try {
        expect(await counts(imported)).toEqual(await counts(source));
        expect((await imported.verify({ files: true })).violations).toEqual([]);
      } finally {
        await source.close();
        await imported.close();
      }
    } finally {
      store.close();
    }
  });
});
