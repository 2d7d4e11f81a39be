// Serving a table after excision removed part of its history: the manifests written before must never stand in
// for what the table holds now. A group of files one commit added, one of them removed later, is served before
// and after the removal's snapshot is excised; icebird must read what catalog.sql reads at every step.
import { copyFile, readFile } from 'node:fs/promises';
import { icebergRead } from 'icebird';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/catalog/catalog.js';
import { openCatalog } from '../helpers.js';
import { fetchFileUrls } from '../support/file-fetch.js';

fetchFileUrls();

const ids = (rows: Record<string, unknown>[]) => rows.map((r) => Number(r.id)).sort((a, b) => a - b);

async function icebirdIds(c: Catalog, at?: number) {
  const { metadata } = await c.iceberg('main', 't', at === undefined ? undefined : { snapshot: at });
  return ids(await icebergRead({ tableUrl: metadata.location, metadata: metadata as never }));
}

describe('Iceberg metadata after excision', () => {
  it('reads what catalog.sql reads, though a manifest of the same group and cut was written before', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id BIGINT)');
    await c.sql('INSERT INTO t VALUES (1), (2)');
    const r = await c.reader();
    const [made] = await r.dataFiles('main', 't');
    const stats = (await r.columnStats('main', 't', [made!])).get(made!.id) ?? [];
    await r.close();
    const bytes = await readFile(c.dataFileLocation(made!.path));
    // One commit adds two copies of that file (a group of two), the next removes one of them.
    await c.transaction(async (tx) => {
      for (const name of ['x', 'y']) {
        await copyFile(c.dataFileLocation(made!.path), c.dataFileLocation(`main/t/${name}.parquet`));
        await tx.addDataFile('main', 't', { path: `main/t/${name}.parquet`, recordCount: 2, fileSizeBytes: bytes.length, footerSize: made!.footerSize, columnStats: stats });
      }
    });
    const group = (await c.snapshots()).at(-1)!.id;
    const atGroup = await c.reader({ snapshot: group });
    const x = (await atGroup.dataFiles('main', 't')).find((f) => f.path === 'main/t/x.parquet')!;
    await atGroup.close();
    await c.transaction((tx) => tx.removeDataFile('main', 't', x.id));
    await c.sql('INSERT INTO t VALUES (9)');
    const head = (await c.snapshots()).at(-1)!.id;

    // Served at the group's snapshot and at the head: the group's manifest as added, and as cut by the removal.
    expect(await icebirdIds(c, group)).toEqual([1, 1, 1, 2, 2, 2]);
    expect(await icebirdIds(c)).toEqual(ids((await c.sql('SELECT id FROM t')).rows));

    await c.advanceRetainFrom({ snapshot: head });
    const excised = await c.excise();
    expect(excised.files, 'x is excised').toBeGreaterThan(0);
    expect(await icebirdIds(c)).toEqual(ids((await c.sql('SELECT id FROM t')).rows));
    expect(await icebirdIds(c)).toEqual([1, 1, 2, 2, 9]);
    // A snapshot served for the first time after the excision names the group as it now stands.
    await c.sql('INSERT INTO t VALUES (10)');
    expect(await icebirdIds(c)).toEqual([1, 1, 2, 2, 9, 10]);
  });
});
