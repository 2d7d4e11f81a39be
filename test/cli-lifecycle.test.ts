// The command line over a whole lifecycle, as a new user meets it: --version, "did you mean", extra
// arguments refused, exit codes (0 done, 1 failed, 2 usage), --json errors, snapshot arguments by id, time or
// tag, listings cut by --limit/--offset with totals, info, names instead of ids, reclaim at scale with a
// limit, export and import, and the timeline's SVG.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { Catalog } from '../src/index.js';
import { tempDir } from './helpers.js';
import { runCli as run } from './support/run-cli.js';

describe('strata CLI, a whole lifecycle', () => {
  it('usage mistakes exit 2 with what to do; failures exit 1; --json errors are JSON', { timeout: 120_000 }, async () => {
    const dir = path.join(await tempDir(), 'lake');
    expect((await run('init', '--dir', dir)).code).toBe(0);
    const version = await run('--version');
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const typo = await run('snapshots', '--dri', dir);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown option '--dri'");
    expect(typo.stderr).toContain('Did you mean --dir?');
    const extra = await run('snapshots', 'extra', '--dir', dir);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('too many arguments');
    const unknown = await run('snapshot', '--dir', dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Did you mean snapshots?');
    const jsonUsage = await run('snapshots', '--dri', dir, '--json');
    expect(jsonUsage.code).toBe(2);
    expect(JSON.parse(jsonUsage.stderr).error.code).toBe('USAGE');
    const jsonFailure = await run('show', 'main.nope', '--dir', dir, '--json');
    expect(jsonFailure.code).toBe(1);
    expect(JSON.parse(jsonFailure.stderr)).toEqual({ error: { code: 'NOT_FOUND', message: expect.stringContaining('"main"."nope" does not exist') } });
    const badAt = await run('show', '--at', 'abc', '--dir', dir);
    expect(badAt.code).toBe(1);
    expect(badAt.stderr).toContain('--at "abc" is not a snapshot id (an integer ≥ 0), a time (such as 2026-03-01T12:00Z) or a tag that exists; strata tag list lists the tags');
    expect((await run('--help')).stdout).toContain('Exit codes: 0 done, 1 the command failed');
  });

  it('ids, times and tags name snapshots; listings are cut with totals; names instead of ids; info; export, import, timeline', { timeout: 240_000 }, async () => {
    const base = await tempDir();
    const dir = path.join(base, 'lake');
    // 40 commits of 50 files each, through the API (the CLI registers files with load and sql); the objects
    // are copies of one real Parquet file of 10 rows with the column's field id, there to be reclaimed and copied
    // (an import reads what each file holds).
    const c = await Catalog.open({ dir });
    await mkdir(path.join(dir, 'store', 'data', 'events'), { recursive: true });
    await c.transaction((tx) => tx.createTable('main', 'events', [{ name: 'id', type: 'int64' }]));
    const columnId = (await (await c.reader()).table('main', 'events')).columns[0]!.id;
    const one = path.join(base, 'one.parquet');
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    await duck.run(`COPY (SELECT range AS id FROM range(10)) TO '${one}' (FORMAT parquet, FIELD_IDS {id: ${columnId}})`);
    duck.closeSync();
    const bytes = await readFile(one);
    for (let i = 0; i < 40; i++) for (let f = 0; f < 50; f++) await writeFile(path.join(dir, 'store', 'data', 'events', `${i}-${f}.parquet`), bytes);
    for (let i = 0; i < 40; i++) {
      await c.transaction(async (tx) => {
        for (let f = 0; f < 50; f++) await tx.addDataFile('main', 'events', { path: `events/${i}-${f}.parquet`, recordCount: 10, fileSizeBytes: bytes.length });
      });
    }
    await c.createTag('q1_close', 6);
    const at10 = (await c.snapshots()).find((s) => s.id === 10)!.time.toISOString();
    await c.close();

    const diff = await run('diff', 'events', 'q1_close', at10, '--dir', dir, '--json');
    expect(diff.code, diff.stderr).toBe(0);
    expect(JSON.parse(diff.stdout).addedFiles).toHaveLength(5 * 50); // snapshots 6..10, inclusive
    const tagged = await run('tag', 'create', 't10', at10, '--dir', dir);
    expect(tagged.stdout).toContain('tag t10 → snapshot 10');
    expect((await run('restore', 'events', 'q1_close', '--dir', dir)).stdout).toContain('restored to snapshot 6 as snapshot 42');

    // Newest first: --offset pages back in time.
    expect((await run('snapshots', '--dir', dir)).stdout).toMatch(/^id .*\n-+.*\n42\s/);
    const listing = await run('snapshots', '--dir', dir, '--limit', '5', '--offset', '36');
    expect(listing.stdout).toContain('37–41 of 43 snapshots shown');
    expect(listing.stdout).toMatch(/^-+.*\n6\s+\S+\s+1\s+q1_close\s.*\n5\s/m); // the tag column
    expect(listing.stdout).toContain('inserted into main.events'); // a name, not inserted_into_table:1
    const page = JSON.parse((await run('snapshots', '--dir', dir, '--limit', '2', '--json')).stdout);
    expect(page).toMatchObject({ total: 43, offset: 0, limit: 2 });
    expect(page.items.map((s: { id: number }) => s.id)).toEqual([42, 41]);
    const show = await run('show', 'events', '--dir', dir, '--at', 'q1_close');
    expect(show.stdout).toContain('1–100 of 250 data files shown');

    const info = await run('info', '--dir', dir);
    expect(info.stdout).toMatch(/log layout\s+segments/);
    expect(info.stdout).toMatch(/data path\s+.*store\/data\//);
    const [, shown] = /data files \(newest\)\s+250, ([\d.]+) KiB/.exec(info.stdout) ?? [];
    expect(Number(shown), info.stdout).toBeCloseTo((250 * bytes.length) / 1024, 0);

    // GC: everything older than the restore goes but the tags keep 6 and 10: of 2,000 paths, the 450 that 10 reads stay.
    expect((await run('retain', '--snapshot', '42', '--dir', dir)).stdout).toContain('retain-from is 42');
    expect((await run('excise', '--dir', dir)).code).toBe(0);
    const reclaimed = await run('reclaim', '--grace', '0s', '--limit', '3', '--dir', dir);
    expect(reclaimed.code, reclaimed.stderr).toBe(0);
    expect(reclaimed.stdout).toContain('deleted 1550 scheduled files');
    expect(reclaimed.stdout).toContain('1–3 of 1,550 paths shown');
    expect(reclaimed.stdout.split('\n').length).toBeLessThan(10);

    const timeline = await run('timeline', '--dir', dir, '--svg', path.join(base, 'history.svg'));
    expect(timeline.stdout).toContain('snapshots 0–42: 3 here, 40 excised; retain-from 42');
    expect(timeline.stdout).toContain('tag q1_close → snapshot 6 (below retain-from: kept by it)');
    const picture = await readFile(path.join(base, 'history.svg'), 'utf8');
    expect(picture).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(picture).toContain('tag q1_close → 6');
    expect(picture).toContain('retain-from 42');
    expect(picture).toMatch(/excision job \d+ \(retain-from 42\): removed \d+ versions/);
    expect(picture.match(/<circle [^>]*><title>snapshot \d+: /g)).toHaveLength(3);

    const lake = path.join(base, 'lake.sqlite');
    expect((await run('export', '--to', lake, '--dir', dir)).stdout).toContain('exported snapshots up to 42');
    const imported = await run('import', '--from', lake, '--dir', path.join(base, 'again'), '--copy-files');
    expect(imported.code, imported.stderr).toBe(0);
    // The lake has gaps where excision was; the import rebuilds those snapshots and excises them again.
    expect(imported.stdout).toContain('imported 3 snapshots (newest 42)');
    const [a, b] = [await Catalog.open({ dir }), await Catalog.open({ dir: path.join(base, 'again') })];
    try {
      expect((await b.snapshots()).map((s) => s.id)).toEqual([6, 10, 42]);
      expect(await b.retainFrom()).toBe(42);
      for (const at of [6, 10, 42]) {
        const [ra, rb] = [await a.reader({ snapshot: at }), await b.reader({ snapshot: at })];
        expect(await rb.dataFiles('main', 'events')).toEqual(await ra.dataFiles('main', 'events'));
        await Promise.all([ra.close(), rb.close()]);
      }
      expect((await b.verify()).violations).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
