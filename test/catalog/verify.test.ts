// verify() finds each broken invariant in a catalog broken for real — through the store (a log entry a buggy
// writer could write, a damaged object, a missing file) or through the index — and nothing in a healthy one,
// after GC, compaction and a restore.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Level } from 'level';
import { describe, expect, it } from 'vitest';
import { type BaseFile, baseValues, dataFileEntity, dataFileKey, type DataFileRow, idRangeKey, pathRefGone } from '../../keys/data-files.js';
import { catalogId, fileId, kvSeq, snapshotId } from '../../keys/ids.js';
import { encodeKey } from '../../keys/key-codec.js';
import { Space } from '../../keys/spaces.js';
import { type Mutation, putRow } from '../../keys/mutation.js';
import { relationNameEntity } from '../../keys/relations.js';
import { putTag } from '../../keys/retention.js';
import { schemaEntity } from '../../keys/schemas.js';
import { exciseSnapshot, snapshotChangesKey } from '../../keys/snapshots.js';
import { putTableStats } from '../../keys/stats.js';
import { putHeadSnapshot } from '../../keys/system.js';
import { seal } from '../../src/kv/index-seal.js';
import { deleteFileBytes, putDeleteFile } from '../support/delete-file.js';
import { flipInEntry, logHead, rewriteEntry, withStoreLog } from '../support/store-log.js';
import { type Catalog, type VerifyReport } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { openCatalog, steppingClock, tempDir } from '../helpers.js';

/** A catalog with most of what a history holds: renames, views, columns, files with their objects, deletes, a restore, GC. */
async function healthy(): Promise<{ dir: string; c: Catalog; store: DirectoryStore }> {
  const dir = await tempDir();
  const clock = steppingClock();
  const c = await openCatalog({ dir, clock, checkpointEvery: 0 });
  const store = new DirectoryStore(path.join(dir, 'store'));
  const file = async (p: string, size: number) => {
    await store.putIfAbsent(`data/${p}`, new Uint8Array(size));
    return { path: p, recordCount: size, fileSizeBytes: size };
  };
  await c.transaction(async (tx) => {
    await tx.createSchema('sales');
    await tx.createTable('sales', 'orders', [{ name: 'id', type: 'int64' }]);
    await tx.createView('sales', 'recent', 'SELECT 1');
  });
  const ids: number[] = [];
  for (let i = 0; i < 6; i++) {
    const spec = await file(`orders/f${i}.parquet`, 10 + i);
    await c.transaction(async (tx) => void ids.push(await tx.addDataFile('sales', 'orders', spec)));
  }
  const del = await putDeleteFile(store, 'data/orders/d1.parquet', 'orders/f1.parquet', [0, 1]);
  await c.transaction(async (tx) => {
    await tx.addDeleteFile('sales', 'orders', { dataFileId: ids[1]!, path: 'orders/d1.parquet', deleteCount: 2, fileSizeBytes: del.fileSizeBytes });
    await tx.removeDataFile('sales', 'orders', ids[0]!);
    await tx.addColumn('sales', 'orders', { name: 'status', type: 'varchar' });
  });
  await c.transaction((tx) => tx.renameTable('sales', 'orders', 'order_history'));
  await c.createTag('before-drop', 9);
  await c.transaction(async (tx) => {
    await tx.dropView('sales', 'recent');
    await tx.createTable('main', 'scratch', [{ name: 'x', type: 'int32' }]);
  });
  await c.restoreTable('sales', 'order_history', 5);
  await c.advanceRetainFrom({ snapshot: 8 });
  await c.excise();
  await c.reclaimFiles({ graceMs: 0 });
  await c.checkpoint();
  await c.compactLog({ minAgeMs: 0 });
  return { dir, c, store };
}

/** Appends an entry to the store's log as a writer would (numbered and chained after the newest one). */
async function forge(dir: string, mutations: Mutation[]): Promise<void> {
  await withStoreLog(path.join(dir, 'store'), async (log) => {
    const head = await log.head(kvSeq(0));
    const prev = (await log.read(head))!;
    expect(await log.append({ seq: kvSeq(head + 1), kind: 'system', epoch: 0, txn: `forged-${head + 1}`, prev: prev.txn, snapshots: [], mutations })).toBe(true);
  });
}

const invariantsOf = (r: VerifyReport) => [...new Set(r.violations.map((v) => v.invariant))].sort();

/** A catalog broken by `forge`d mutations, opened afresh (its index applies them), and what verify says. */
async function brokenBy(build: (c: Catalog) => Promise<Mutation[]>): Promise<VerifyReport> {
  const { dir, c } = await healthy();
  const mutations = await build(c);
  await forge(dir, mutations);
  await c.refresh();
  return c.verify({ files: true });
}

const headOf = async (c: Catalog) => (await c.snapshots()).at(-1)!.id;

describe('verify', () => {
  it('finds nothing in a healthy catalog, after renames, deletes, a restore, excision, reclamation, a checkpoint and log compaction', async () => {
    const { c } = await healthy();
    const report = await c.verify({ files: true });
    expect(report.violations).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.checked.logEntries).toBeGreaterThan(10);
    expect(report.checked.files).toBeGreaterThan(3);
  });

  describe('finds each invariant broken through the log', () => {
    const cases: [string, (c: Catalog) => Promise<Mutation[]>][] = [
      ['versions-do-not-overlap', async () => [schemaEntity(catalogId(0)).create(snapshotId(3), { name: 'main', uuid: 'again' })]],
      ['version-ends-after-it-begins', async () => [putRow(schemaEntity(catalogId(0)).key(0), { name: 'main', uuid: 'x', end: 0 })]],
      ['snapshot-records-are-whole', async (c) => [{ type: 'del', key: snapshotChangesKey(await headOf(c)) }]],
      ['time-index-equals-the-snapshots', async (c) => {
        const s = (await c.snapshots()).at(-1)!;
        return [exciseSnapshot(s.id, { time: s.time.getTime(), schemaVersion: 0, nextCatalogId: catalogId(0), nextFileId: fileId(0) })[3]!];
      }],
      ['head-is-the-newest-snapshot', async () => [putHeadSnapshot(snapshotId(9999))]],
      ['named-snapshots-exist', async () => [schemaEntity(catalogId(500)).create(snapshotId(5000), { name: 'far_future', uuid: 'u' })]],
      ['tagged-snapshots-exist', async () => [putTag('ghost', { snapshot: snapshotId(7777), createdAt: 0 })]],
      ['counters-above-every-id', async () => [schemaEntity(catalogId(1_000_000)).create(snapshotId(9), { name: 'huge_id', uuid: 'u' })]],
      ['name-index-names-what-exists', async () => [relationNameEntity(catalogId(1), 'ghost').create(snapshotId(9), { kind: 'table', id: catalogId(4242) })]],
      ['manifests-list-their-files', async (c) => {
        const r = await c.reader();
        const t = await r.table('sales', 'order_history');
        await r.close();
        const row = { path: 'stray.parquet', format: 'parquet', recordCount: 1, fileSizeBytes: 1, footerSize: null, rowIdStart: 0 };
        return [dataFileEntity(t.id, fileId(900)).create(snapshotId(9), row)];
      }],
      ['file-table-index-names-each-file', async (c) => {
        // The run that starts at the table's first file given to another table.
        const r = await c.reader();
        const [f] = await r.dataFiles('sales', 'order_history');
        await r.close();
        return [putRow(idRangeKey(f!.id), { tableId: catalogId(999), lastId: f!.id, begin: f!.beginSnapshot })];
      }],
      ['file-end-index-equals-the-rows', async (c) => {
        const r = await c.reader();
        const [f] = await r.dataFiles('sales', 'order_history');
        const t = await r.table('sales', 'order_history');
        await r.close();
        const row: DataFileRow = { path: f!.path, format: f!.format, recordCount: f!.recordCount, fileSizeBytes: f!.fileSizeBytes, footerSize: f!.footerSize, rowIdStart: f!.rowIdStart, end: snapshotId(await headOf(c)) };
        return [putRow(dataFileKey(t.id, f!.id, f!.beginSnapshot), row)];
      }],
      ['path-index-names-every-row', async (c) => {
        const r = await c.reader();
        const [f] = await r.dataFiles('sales', 'order_history');
        await r.close();
        return [pathRefGone(f!.path, f!.id)];
      }],
      ['bases-list-visible-files', async (c) => {
        // A base at the newest snapshot that leaves out one of the files visible there.
        const r = await c.reader();
        const [, ...rest] = await r.dataFiles('sales', 'order_history');
        const t = await r.table('sales', 'order_history');
        await r.close();
        return baseValues(t.id, r.snapshot.id, rest.map((f): BaseFile => [f.beginSnapshot, [f.id, f.path, f.format, f.recordCount, f.fileSizeBytes, f.footerSize, f.rowIdStart, f.contentCrc32]]));
      }],
      ['ended-at-index-equals-the-ends', async (c) => {
        // The ends by end say a live file ended: of the mutations ending it, that entry alone.
        const r = await c.reader();
        const [f] = await r.dataFiles('sales', 'order_history');
        const t = await r.table('sales', 'order_history');
        await r.close();
        const { path: p, format, recordCount, fileSizeBytes, footerSize, rowIdStart } = f!;
        return [dataFileEntity(t.id, f!.id).end({ begin: f!.beginSnapshot, row: { path: p, format, recordCount, fileSizeBytes, footerSize, rowIdStart } }, snapshotId(await headOf(c))).at(-1)!];
      }],
      ['end-index-lists-every-end', async () => [putRow(schemaEntity(catalogId(0)).key(0), { name: 'main', end: 9 })]],
      ['table-stats-add-up', async (c) => {
        const r = await c.reader();
        const t = await r.table('sales', 'order_history');
        await r.close();
        return [putTableStats(t.id, { recordCount: 999_999, nextRowId: 0, fileSizeBytes: 1 })];
      }],
      ['values-decode', async () => [{ type: 'put', key: schemaEntity(catalogId(77)).key(9), value: Uint8Array.of(1, 0xc1) }]],
    ];
    it('table stats that count fewer ended files than have an end (a listing would skip their ends)', async () => {
      const report = await brokenBy(async (c) => {
        const r = await c.reader();
        const t = await r.table('sales', 'order_history');
        const live = await r.dataFiles('sales', 'order_history');
        await r.close();
        const sum = (f: (x: (typeof live)[number]) => number) => live.reduce((n, x) => n + f(x), 0);
        // Right in everything the other checks add up, wrong only in the ended count.
        const row = { recordCount: sum((x) => x.recordCount), fileSizeBytes: sum((x) => x.fileSizeBytes), dataFiles: live.length, nextRowId: 1_000_000, endedFiles: 0 };
        return [putTableStats(t.id, row)];
      });
      expect(report.violations.map((v) => [v.invariant, v.message.includes('ever ended')])).toEqual([['table-stats-add-up', true]]);
    });

    for (const [invariant, build] of cases) {
      it(invariant, async () => {
        const report = await brokenBy(build);
        expect(report.ok).toBe(false);
        expect(invariantsOf(report)).toContain(invariant);
        expect(report.violations.find((v) => v.invariant === invariant)!.message.length).toBeGreaterThan(10);
      });
    }
  });

  describe('finds damage in the store and in the index', () => {
    it('a damaged log entry', async () => {
      const { dir, c } = await healthy();
      const root = path.join(dir, 'store');
      await flipInEntry(root, await logHead(root), 3);
      expect(invariantsOf(await c.verify())).toContain('log-entries-are-whole');
    });

    it('a gap in the log, even one a checkpoint stands for', async () => {
      const { dir, c } = await healthy();
      await rewriteEntry(path.join(dir, 'store'), 3, () => undefined);
      const report = await c.verify();
      expect(report.violations).toEqual([expect.objectContaining({ invariant: 'log-entries-are-whole', message: expect.stringContaining('log entry 3 ') })]);
    });

    it('a log entry replaced by one that does not follow its predecessor (checksums intact)', async () => {
      const { dir, c } = await healthy();
      const root = path.join(dir, 'store');
      await rewriteEntry(root, await logHead(root), (entry) => ({ ...entry, prev: 'another-history' }));
      expect(invariantsOf(await c.verify())).toContain('log-entries-follow-each-other');
    });

    it('a damaged chunk of the newest checkpoint', async () => {
      const { dir, c } = await healthy();
      const cps = path.join(dir, 'store', 'checkpoints');
      const [newest] = (await readdir(cps)).sort().slice(-1);
      const chunk = path.join(cps, newest!, 'chunk-000001');
      const bytes = await readFile(chunk);
      bytes[20] = bytes[20]! ^ 0x01;
      await writeFile(chunk, bytes);
      expect(invariantsOf(await c.verify())).toContain('checkpoints-are-whole');
    });

    it('a file a retained row names deleted from the store, and one of another size', async () => {
      const { c, store } = await healthy();
      const r = await c.reader();
      const [a, b] = await r.dataFiles('sales', 'order_history');
      await r.close();
      await store.delete([`data/${a!.path}`]);
      await store.replace(`data/${b!.path}`, new Uint8Array(b!.fileSizeBytes + 5));
      const report = await c.verify({ files: true });
      expect(report.violations.filter((v) => v.invariant === 'named-files-exist').map((v) => v.object).sort()).toEqual([`data/${a!.path}`, `data/${b!.path}`].sort());
      expect((await c.verify()).ok).toBe(true);
    });

    it('a delete file whose positions do not fit its data file (registered before the store held it)', async () => {
      const dir = await tempDir();
      const c = await openCatalog({ dir });
      await c.sql('CREATE TABLE t (id BIGINT)');
      await c.sql('INSERT INTO t VALUES (1), (2), (3)');
      const r = await c.reader();
      const [f] = await r.dataFiles('main', 't');
      await r.close();
      const bytes = await deleteFileBytes(f!.path, [1, 1, 7]);
      await c.transaction((tx) => tx.addDeleteFile('main', 't', { dataFileId: f!.id, path: 'bad-deletes.parquet', deleteCount: 2, fileSizeBytes: bytes.length }));
      await new DirectoryStore(path.join(dir, 'store')).putIfAbsent(`${c.dataPath}bad-deletes.parquet`, bytes);
      expect((await c.verify()).violations).toEqual([]); // the files are read only when asked for
      const report = await c.verify({ files: true });
      expect(invariantsOf(report)).toEqual(['delete-files-fit-their-data']);
      expect(report.violations[0]).toMatchObject({ object: `${c.dataPath}bad-deletes.parquet` });
      expect(report.violations[0]!.message).toMatch(/position 7, past the 3 rows/);
    });

    it("a damaged value in the index that no invariant reads (a snapshot's changes: history reads them)", async () => {
      const { dir, c } = await healthy();
      const head = await headOf(c);
      await c.close();
      const db = new Level<Uint8Array, Uint8Array>(path.join(dir, 'index'), { keyEncoding: 'view', valueEncoding: 'view' });
      await db.put(snapshotChangesKey(head), Uint8Array.of(1, 0xc1));
      await db.close();
      await seal(path.join(dir, 'index'));
      const report = await (await openCatalog({ dir, checkpointEvery: 0 })).verify();
      expect(report.violations).toContainEqual(expect.objectContaining({ invariant: 'values-decode', key: `SnapshotChanges[@${head}]` }));
    });

    it('an index that differs from the log, below what its seal can see', async () => {
      const { dir, c } = await healthy();
      await c.close();
      const db = new Level<Uint8Array, Uint8Array>(path.join(dir, 'index'), { keyEncoding: 'view', valueEncoding: 'view' });
      await db.put(putTag('only-in-the-index', { snapshot: snapshotId(9), createdAt: 0 }).key, (putTag('x', { snapshot: snapshotId(9), createdAt: 0 }) as { value: Uint8Array }).value);
      await db.close();
      // As if LevelDB itself had written it: sealed, so the open trusts the files.
      await seal(path.join(dir, 'index'));
      const reopened = await openCatalog({ dir, checkpointEvery: 0 });
      const report = await reopened.verify();
      expect(report.violations).toEqual([expect.objectContaining({ invariant: 'index-equals-log', key: 'SnapshotTag["only-in-the-index"]' })]);
    });
  });
});

describe('verify of a catalog of more keys than one census slice holds', () => {
  it('reads the index a slice at a time and finds what is broken in any slice, once', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir, checkpointEvery: 0 });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    // Two keys a file (its row and its path's) and a share of a manifest: past the 200,000 keys one slice is taken over.
    await c.transaction((tx) => tx.addDataFiles('main', 't', Array.from({ length: 105_000 }, (_, i) => ({ path: `t/${i}.parquet`, recordCount: 1, fileSizeBytes: 1 }))));
    const clean = await c.verify();
    expect(clean.violations).toEqual([]);
    expect(clean.checked).toMatchObject({ keys: expect.any(Number), censusScans: 2 });
    expect(clean.checked.keys).toBeGreaterThan(210_000);
    // Two files: one's path reference removed (the rows naming a path are its slice's), the other's file→table
    // entry removed (a file's entries are the slice of its id).
    const r = await c.reader();
    const t = await r.table('main', 't');
    const [a, b] = await r.dataFiles('main', 't');
    await r.close();
    expect(b!.id).toBe(a!.id + 1);
    // b gets an entry of the file→table index's old form beside its commit's run: named twice.
    await forge(dir, [pathRefGone(a!.path, a!.id), putRow(encodeKey(Space.FileTableIndex, [b!.id], b!.beginSnapshot), { tableId: t.id })]);
    await c.refresh();
    const broken = await c.verify();
    expect(broken.checked.censusScans).toBe(2);
    // Each slice reports what it finds; the report holds the slices' findings one slice after another.
    expect(broken.violations.map((v) => [v.invariant, v.key ?? v.message]).sort()).toEqual([
      ['file-table-index-names-each-file', `DataFile[${t.id},${b!.id},@${b!.beginSnapshot}]`],
      ['file-table-index-names-each-file', `FileIdRange[${a!.id}]`],
      ['path-index-names-every-row', `${JSON.stringify(a!.path)} is named by file rows [${a!.id}] but not in the path index`],
    ]);
    await c.close();
  }, 60_000);
});

describe('strata verify and strata repair', () => {
  const main = new URL('../../src/cli/main.ts', import.meta.url);
  const cli = async (...args: string[]) => {
    const { execFile } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    return new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', fileURLToPath(main), ...args], (e, stdout) => resolve({ code: e ? (e as { code?: number }).code ?? 1 : 0, stdout }));
    });
  };

  it('exits 0 on a healthy catalog and 1 on a violation, with --json; repair --rebuild-index rebuilds the index from the store', async () => {
    const { dir, c, store } = await healthy();
    const r = await c.reader();
    const [f] = await r.dataFiles('sales', 'order_history');
    await r.close();
    await c.close();
    const ok = await cli('verify', '--dir', dir, '--files', '--json');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, violations: [] });
    await store.delete([`data/${f!.path}`]);
    const broken = await cli('verify', '--dir', dir, '--files', '--json');
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout).violations).toEqual([expect.objectContaining({ invariant: 'named-files-exist', object: `data/${f!.path}` })]);
    const repaired = await cli('repair', '--dir', dir, '--rebuild-index');
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toContain('rebuilt from the store');
    expect((await cli('verify', '--dir', dir, '--json')).code).toBe(0);
  }, 60_000);
});
