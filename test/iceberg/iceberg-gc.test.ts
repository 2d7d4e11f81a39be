// GC after serving: what excision made obsolete goes (the lists and metadata of excised snapshots, manifests no
// retained snapshot names), and nothing a retained, tagged or leased snapshot's metadata names — checked by
// following every reference from the metadata served after GC with Debian's avrocat, and by icebird reading
// the rows through it.
import { execFileSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { icebergRead } from 'icebird';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/catalog/catalog.js';
import type { IcebergTable } from '../../src/iceberg/table-metadata.js';
import { openCatalog } from '../helpers.js';
import { fetchFileUrls } from '../support/file-fetch.js';

fetchFileUrls();

const ids = (rows: Record<string, unknown>[]) => rows.map((r) => Number(r.id)).sort((a, b) => a - b);

/** Every object the metadata names, as store keys: itself, each snapshot's list, the manifests and delete copies in them. */
function referenced(storeRoot: string, t: IcebergTable): Set<string> {
  const key = (uri: string) => relative(storeRoot, fileURLToPath(uri));
  const out = new Set([key(t.metadataLocation)]);
  const avro = (uri: string) => execFileSync('avrocat', [fileURLToPath(uri)], { encoding: 'utf8' }).trim().split('\n').map((l) => JSON.parse(l));
  for (const s of t.metadata.snapshots) {
    out.add(key(s['manifest-list']));
    for (const m of avro(s['manifest-list'])) {
      out.add(key(m.manifest_path));
      for (const e of avro(m.manifest_path)) if (e.data_file.content === 1) out.add(key(e.data_file.file_path));
    }
  }
  return out;
}

async function icebergObjects(storeRoot: string): Promise<Set<string>> {
  const dir = join(storeRoot, 'iceberg');
  return new Set((await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => relative(storeRoot, join(e.parentPath, e.name))));
}

const headId = async (c: Catalog) => (await c.snapshots()).at(-1)!.id as number;

describe('GC of the Iceberg objects', () => {
  it('removes what only excised snapshots needed, and keeps every object the retained and tagged metadata names', async () => {
    const c = await openCatalog();
    const root = join(c.dataFileLocation('x'), '..', '..');
    await c.sql('CREATE TABLE t (id BIGINT)');
    for (let i = 1; i <= 3; i++) await c.sql(`INSERT INTO t VALUES (${i})`);
    await c.sql('DELETE FROM t WHERE id = 1');
    await c.createTag('kept', await headId(c));
    await c.sql('INSERT INTO t VALUES (4)');
    await c.compact('main', 't');
    await c.sql('DELETE FROM t WHERE id = 2');
    await c.sql('CREATE TABLE gone (id BIGINT)');
    await c.sql('INSERT INTO gone VALUES (7)');
    // Served at every snapshot of t, and gone at its head, before anything is excised.
    for (const s of await c.snapshots()) await c.iceberg('main', 't', { snapshot: s.id }).catch(() => undefined);
    await c.iceberg('main', 'gone');
    await c.sql('DROP TABLE gone');
    await c.sql('INSERT INTO t VALUES (5)');
    const before = await icebergObjects(root);

    expect((await c.reclaimFiles()).iceberg, 'within the grace period nothing goes').toEqual([]);
    const horizon = await headId(c);
    await c.advanceRetainFrom({ snapshot: horizon });
    await c.excise();
    // Served under the new horizon before GC runs: GC must keep all of it, the tag's below the horizon too.
    const head = await c.iceberg('main', 't');
    const tagged = await c.iceberg('main', 't', { tag: 'kept' });
    const report = await c.reclaimFiles({ graceMs: 0 });
    expect(report.failed).toEqual([]);
    const named = new Set([...referenced(root, head), ...referenced(root, tagged)]);
    const after = await icebergObjects(root);
    for (const k of named) expect(after.has(k), `${k} is named by retained metadata`).toBe(true);
    // What GC deleted was there before, and is named by no retained metadata.
    expect(report.iceberg.length).toBeGreaterThan(0);
    for (const k of report.iceberg) {
      expect(before.has(k), k).toBe(true);
      expect(named.has(k), k).toBe(false);
    }
    // What is left is what retained metadata names, besides metadata files made under this horizon.
    for (const k of after) if (!named.has(k)) expect(k, 'left though nothing names it').toMatch(new RegExp(`/metadata/\\d+-${horizon}-[0-9a-f]+\\.metadata\\.json$`));
    expect([...after].filter((k) => /\/metadata\//.test(k)).every((k) => new RegExp(`-${horizon}-`).test(k))).toBe(true);

    expect(ids(await icebergRead({ tableUrl: head.metadata.location, metadata: head.metadata as never }))).toEqual(ids((await c.sql('SELECT id FROM t')).rows));
    expect(ids(await icebergRead({ tableUrl: tagged.metadata.location, metadata: tagged.metadata as never }))).toEqual(ids((await c.sql(`SELECT id FROM t AT (VERSION => 'kept')`)).rows));
    expect((await c.verify({ files: true })).ok).toBe(true);
  });
});
