// An import is as strict as the API: a lake whose rows the API would refuse — as calls, or as the state they
// leave — is refused with a StrataError naming the row, and leaves nothing behind: no catalog, no directory,
// no object in a store it was pointed at. Each lake here is a real export of a real history, tampered with by
// plain SQL on its SQLite file (issue 42, "Import trusts every row").
import { cpSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/index.js';
import { readAll } from '../helpers.js';
import { runCli } from '../support/run-cli.js';
import { type ExportedLake, exportedLake, listing, outcome, removeLake, tampered } from './lakes.js';
import { gapAt, TAMPERED } from './tamperings.js';

let lake: ExportedLake;
beforeAll(async () => {
  lake = await exportedLake();
}, 60_000);
afterAll(() => removeLake(lake));

let targets = 0;
const target = () => path.join(lake.root, `import-${++targets}`);

describe('DuckLake import is as strict as the API', () => {
  it.each(TAMPERED)('refuses %s, naming it, and leaves nothing behind', async (_what, sql, code, message) => {
    const file = await tampered(lake, sql);
    const dir = target();
    const { error, report } = await outcome(file, { dir, copyFiles: true });
    expect(report, 'imported').toBeUndefined();
    expect(error!.code, error!.message).toBe(code);
    expect(error!.message).toMatch(message);
    expect(error!.message).toContain(file);
    expect(existsSync(dir), `${dir} is left behind`).toBe(false);
  });

  it('refuses an option it does not know (a typo must not turn a copy into none), naming the one meant', async () => {
    const dir = target();
    const { error } = await outcome(lake.file, { dir, copyfiles: true } as never);
    expect(error?.code).toBe('INVALID_ARGUMENT');
    expect(error?.message).toMatch(/no option "copyfiles" \(did you mean "copyFiles"\?\)/);
    expect(existsSync(dir)).toBe(false);
  });

  it("into a store that already holds the lake's files: a refusal leaves them as they were, and adds nothing", async () => {
    const store = path.join(lake.root, `store-${++targets}`);
    cpSync(lake.dataDir, path.join(store, 'data'), { recursive: true });
    const before = listing(store);
    const dir = target();
    // Late in the import: every snapshot is committed before the tag is found wrong.
    const file = await tampered(lake, "INSERT INTO strata_snapshot_tag VALUES ('late', 9999, '2026-01-01 00:00:00+00')");
    const { error } = await outcome(file, { dir, store: { path: store } });
    expect(error?.code).toBe('SNAPSHOT_NOT_FOUND');
    expect(listing(store)).toEqual(before);
    expect(existsSync(dir)).toBe(false);
    // The same lake untampered imports in place, reading the files where they are.
    const { report } = await outcome(lake.file, { dir, store: { path: store } });
    expect(report?.copiedFiles).toBe(0);
    const c = await Catalog.open({ dir, store: { path: store }, create: false });
    try {
      expect((await c.verify({ files: true })).violations).toEqual([]);
      expect((await c.sql('SELECT count(*) AS n FROM sales.orders2')).rows).toEqual([{ n: 22n }]);
    } finally {
      await c.close();
    }
  });

  it('strata import refuses a tampered lake with exit 1 and the error, and leaves no catalog directory', { timeout: 60_000 }, async () => {
    const file = await tampered(lake, 'UPDATE ducklake_snapshot SET next_catalog_id = 1, next_file_id = 0');
    const dir = target();
    const r = await runCli('import', '--dir', dir, '--from', file, '--copy-files');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^strata: INVALID_ARGUMENT: .*next_catalog_id there is 1/);
    expect(existsSync(dir)).toBe(false);
    const ok = await runCli('import', '--dir', dir, '--from', lake.file, '--copy-files');
    expect(ok.code, ok.stderr).toBe(0);
    expect((await runCli('verify', '--dir', dir, '--files')).code).toBe(0);
  });
});

describe('snapshot ids: the lake keeps them, and so does the import, gaps and all', () => {
  it('a gap of 10^12 ids imports in a few commits, not one per id; every snapshot the lake holds reads as before, and one in the gap does not exist', { timeout: 120_000 }, async () => {
    const G = 1_000_000_000_000;
    const K = 9;
    const file = await tampered(lake, gapAt(K, G));
    const dir = target();
    const started = Date.now();
    const { report, error } = await outcome(file, { dir, copyFiles: true });
    expect(error).toBeUndefined();
    const seconds = (Date.now() - started) / 1000;
    expect(seconds, `the import took ${seconds} s`).toBeLessThan(60);
    const source = await Catalog.open({ dir: lake.catalogDir, create: false });
    const imported = await Catalog.open({ dir, create: false });
    try {
      const original = await source.snapshots();
      expect(report!.head).toBe(original.at(-1)!.id + G);
      expect((await imported.snapshots()).map((s) => s.id)).toEqual(original.map((s) => (s.id >= K ? s.id + G : s.id)));
      // What a reader sees at each snapshot, its snapshot ids put back where the source has them.
      const back = (x: unknown) => JSON.parse(JSON.stringify(x, (k, v: unknown) => (/Snapshot$/.test(k) && typeof v === 'number' && v >= G ? v - G : v)));
      for (const s of original) {
        const at = s.id >= K ? s.id + G : s.id;
        expect(back((await readAll(imported, at)).schemas), `snapshot ${s.id}`).toEqual(back((await readAll(source, s.id)).schemas));
      }
      expect((await imported.sql(`SELECT count(*) AS n FROM sales.orders AT (VERSION => 'loaded')`)).rows).toEqual([{ n: 22n }]);
      const missing = await imported.reader({ snapshot: K + 5 }).catch((e: unknown) => e);
      expect(missing).toMatchObject({ code: 'SNAPSHOT_NOT_FOUND', nearest: [K - 1, K + G] });
      expect((await imported.verify({ files: true })).violations).toEqual([]);
      // Exported again, the lake keeps its ids (the export walks the ids that exist), and imports again.
      const again = path.join(lake.root, `again-${++targets}.sqlite`);
      expect((await imported.exportDuckLake(again)).head).toBe(report!.head);
      const second = await outcome(again, { dir: target(), copyFiles: true });
      expect(second.error).toBeUndefined();
      expect(second.report!.head).toBe(report!.head);
      // New commits go on from the lake's newest id.
      const { snapshot } = await imported.transaction((tx) => tx.createSchema('after'));
      expect(snapshot).toBe(report!.head + 1);
      // The timeline draws runs of ids, not a mark per id: an array of 10^12 marks was a RangeError.
      await imported.close();
      const timeline = await runCli('timeline', '--dir', dir, '--svg', path.join(lake.root, `timeline-${targets}.svg`));
      expect(timeline.code, timeline.stderr).toBe(0);
      expect(timeline.stdout).toContain(`snapshots 0–${report!.head + 1}: ${original.length + 1} here`);
    } finally {
      await source.close();
      await imported.close();
    }
  });

  it('snapshots the lake expired come back from the rows that name them: below its first, excised again; in the middle, readable', { timeout: 120_000 }, async () => {
    const expired = [0, 1, 2, 3, 4, 5, 10];
    const forget = expired.map((id) => `DELETE FROM ducklake_snapshot WHERE snapshot_id = ${id}; DELETE FROM ducklake_snapshot_changes WHERE snapshot_id = ${id}; DELETE FROM strata_snapshot WHERE snapshot_id = ${id};`).join('\n');
    const file = await tampered(lake, `${forget} DELETE FROM strata_retention;`);
    const dir = target();
    const { report, error } = await outcome(file, { dir, copyFiles: true });
    expect(error).toBeUndefined();
    const source = await Catalog.open({ dir: lake.catalogDir, create: false });
    const imported = await Catalog.open({ dir, create: false });
    try {
      expect(report!.excised).toBeGreaterThan(0);
      expect(await imported.retainFrom()).toBe(6);
      for (const s of await source.snapshots()) {
        if (s.id < 6) {
          await expect(imported.reader({ snapshot: s.id })).rejects.toMatchObject({ code: 'OUT_OF_RETENTION' });
          continue;
        }
        expect((await readAll(imported, s.id)).schemas, `snapshot ${s.id}`).toEqual((await readAll(source, s.id)).schemas);
      }
      expect((await imported.snapshots()).find((s) => s.id === 10)?.message).toMatch(/rebuilt by the import/);
      expect((await imported.verify({ files: true })).violations).toEqual([]);
    } finally {
      await source.close();
      await imported.close();
    }
  });
});
