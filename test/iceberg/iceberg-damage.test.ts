// Damage to the Iceberg objects Strata wrote: a flipped byte anywhere in a manifest, a manifest list, a delete
// copy or a metadata file is found by verify, naming the object; a missing one is made again by the next
// process that serves the table, and the table read through it is the table, never another.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { icebergRead } from 'icebird';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/catalog/catalog.js';
import { openCatalog } from '../helpers.js';
import { fetchFileUrls } from '../support/file-fetch.js';

fetchFileUrls();

const ids = (rows: Record<string, unknown>[]) => rows.map((r) => Number(r.id)).sort((a, b) => a - b);

async function served(dir?: string) {
  const c = await openCatalog(dir === undefined ? {} : { dir });
  const root = join(c.dataFileLocation('x'), '..', '..');
  return { c, root };
}

async function objects(root: string): Promise<string[]> {
  return (await readdir(join(root, 'iceberg'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => relative(root, join(e.parentPath, e.name))).sort();
}

describe('damaged Iceberg objects', () => {
  it('verify finds a flipped byte in each kind of object, naming it', async () => {
    const { c, root } = await served();
    await c.sql('CREATE TABLE t (id BIGINT, s VARCHAR)');
    await c.sql(`INSERT INTO t SELECT i, 'row ' || i FROM range(50) r(i)`);
    await c.sql('DELETE FROM t WHERE id % 7 = 0');
    await c.iceberg('main', 't');
    expect((await c.verify()).ok).toBe(true);
    const all = await objects(root);
    const kinds = ['/manifests/', '/lists/', '/deletes/', '/metadata/'];
    for (const kind of kinds) {
      const key = all.find((k) => k.includes(kind))!;
      expect(key, kind).toBeDefined();
      const file = join(root, key);
      const good = await readFile(file);
      // A byte in the middle of the object, and the last one.
      for (const at of [Math.floor(good.length / 2), good.length - 1]) {
        const bad = Buffer.from(good);
        bad[at] = bad[at]! ^ 0x20;
        await writeFile(file, bad);
        const report = await c.verify();
        expect(report.ok, `${key} byte ${at}`).toBe(false);
        expect(report.violations).toEqual([expect.objectContaining({ invariant: 'iceberg object matches its name', object: key, message: expect.stringMatching(/^CORRUPT: /) })]);
      }
      await writeFile(file, good);
    }
    const report = await c.verify();
    expect(report.ok).toBe(true);
    expect(report.checked.icebergObjects).toBe(all.length);
  });

  it('a missing manifest or delete copy is made again by the next process that serves the table, with the same rows', async () => {
    const { c, root } = await served();
    const dir = join(root, '..');
    await c.sql('CREATE TABLE t (id BIGINT)');
    await c.sql('INSERT INTO t VALUES (1), (2)');
    await c.sql('INSERT INTO t VALUES (3)');
    await c.sql('DELETE FROM t WHERE id = 2');
    await c.iceberg('main', 't');
    const lost = ['/manifests/', '/deletes/'].map((kind) => objects(root).then((all) => all.find((k) => k.includes(kind))!));
    const [manifest, copy] = await Promise.all(lost);
    await rm(join(root, manifest!));
    await rm(join(root, copy!));
    await c.close();

    const again = await Catalog.open({ dir, create: false });
    try {
      const { metadata } = await again.iceberg('main', 't');
      expect(await objects(root)).toEqual(expect.arrayContaining([manifest, copy]));
      expect(ids(await icebergRead({ tableUrl: metadata.location, metadata: metadata as never }))).toEqual([1, 3]);
      expect((await again.verify()).ok).toBe(true);
    } finally {
      await again.close();
    }
  });
});
