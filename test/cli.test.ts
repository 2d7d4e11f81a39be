import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';
import { tempDir } from './helpers.js';
import { failureOf } from '../src/cli/failure.js';
import { StrataError } from '../src/index.js';

const run = runCli;

describe('strata CLI', () => {
  it('demo builds a history that snapshots and show read back, as text and JSON', async () => {
    const dir = path.join(await tempDir(), 'lake');
    const demo = await run('demo', '--dir', dir);
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain('sales.order_history');
    expect(demo.stdout).toContain('NOT_FOUND');
    // The rows the demo says a table holds are the rows its own SQL counts (deletes applied), then and now.
    const said = [...demo.stdout.matchAll(/\(snapshot \d+\): (\d+) rows in sales\.(?:orders|order_history)/g)].map((x) => Number(x[1]));
    const counted = [...demo.stdout.matchAll(/^orders +revenue.*\n-+.*\n(\d+) /gm)].map((x) => Number(x[1]));
    expect(said).toHaveLength(2);
    expect(said).toEqual(counted);
    // A rename is told as one, not as "altered".
    expect((await run('snapshots', '--dir', dir)).stdout).toMatch(/^4 .*orders become order_history\s+renamed sales\.orders to sales\.order_history$/m);

    const snapshots = JSON.parse((await run('snapshots', '--dir', dir, '--json')).stdout).reverse(); // newest first
    expect(snapshots.map((s: { id: number }) => s.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(snapshots[4].changes).toEqual(['altered_table:2']);

    const old = JSON.parse((await run('show', '--dir', dir, '--at', '2', 'sales.orders', '--json')).stdout);
    expect(old.table.name).toBe('orders');
    expect(old.dataFiles.map((f: { path: string }) => f.path)).toEqual(['sales/orders/2026-01.parquet', 'sales/orders/2026-02.parquet']);

    const now = JSON.parse((await run('show', '--dir', dir, '--json')).stdout);
    expect(now.schemas.find((s: { name: string }) => s.name === 'sales').tables.map((t: { name: string }) => t.name)).toEqual(['order_history']);

    const text = await run('show', '--dir', dir, '--at', '1');
    expect(text.stdout).toMatch(/sales\.orders\s+table/);

    // History commands over the demo's history.
    expect(JSON.parse((await run('tag', 'list', '--dir', dir, '--json')).stdout).map((t: { name: string }) => t.name)).toEqual([
      'board_report_2026_03',
    ]);
    const tagged = JSON.parse((await run('show', '--dir', dir, '--tag', 'board_report_2026_03', 'sales.orders', '--json')).stdout);
    expect(tagged.snapshot.id).toBe(3);
    expect(tagged.dataFiles).toHaveLength(3);
    const diff = JSON.parse((await run('diff', '--dir', dir, 'sales.order_history', '4', '8', '--json')).stdout);
    expect(diff.removedFiles.map((f: { path: string }) => f.path)).toEqual(['sales/orders/2026-03.parquet']);
    expect(diff.addedFiles.map((f: { path: string }) => f.path)).toEqual(['sales/order_history/2026-03-restated.parquet']);
    const tableHistory = JSON.parse((await run('snapshots', '--dir', dir, '--table', 'sales.order_history', '--from', '4', '--json')).stdout);
    expect(tableHistory.map((s: { author: string | null }) => s.author)).toEqual([null, 'finance', 'gdpr-job', 'dba', 'dba']);
    expect(JSON.parse((await run('show', '--dir', dir, '--previous', '--json')).stdout).snapshot.id).toBe(8);
    // The newest snapshot at or before snapshot 2's time: 2, or a later one stamped in the same millisecond.
    const at2 = Date.parse(snapshots[2].time);
    const byTime = Math.max(...snapshots.filter((s: { time: string }) => Date.parse(s.time) <= at2).map((s: { id: number }) => s.id));
    expect(byTime).toBeLessThan(9);
    const atTime = JSON.parse((await run('show', '--dir', dir, '--timestamp', snapshots[2].time, '--json')).stdout);
    expect(atTime.snapshot.id).toBe(byTime);
    expect((await run('restore', '--dir', dir, 'sales.order_history', '3')).stdout).toContain('as snapshot 10');
    const restored = JSON.parse((await run('show', '--dir', dir, 'sales.order_history', '--json')).stdout);
    expect(restored.dataFiles.map((f: { path: string }) => f.path)).toContain('sales/orders/2026-03.parquet');
    expect((await run('tag', 'drop', 'board_report_2026_03', '--dir', dir)).stdout).toContain('dropped');
    expect((await run('tag', 'bogus', '--dir', dir)).code).toBe(2);
    expect((await run('checkpoint', '--dir', dir)).stdout).toMatch(/checkpoint at log entry 15: \d+ keys in 1 chunk/);

    // The demo showed GC on a copy; the lake itself kept everything.
    expect(JSON.parse((await run('retain', '--dir', `${dir}-gc`, '--json')).stdout).retainFrom).toBe(9);
    expect(JSON.parse((await run('retain', '--dir', dir, '--json')).stdout)).toEqual({ retainFrom: 0, leases: [] });
    // Now the policy, for real: keep nothing older than now, zero grace.
    const plan = JSON.parse((await run('gc', '--dir', dir, '--keep', '0s', '--dry-run', '--json')).stdout);
    expect(plan.retain.retainFrom).toBe(10);
    expect(JSON.parse((await run('retain', '--dir', dir, '--json')).stdout).retainFrom).toBe(0);
    expect(plan.checkpoint).toBe(null);
    expect(plan.prune).toEqual({ dryRun: true, kept: [15], deleted: [], objects: 0 });
    const gc = JSON.parse(
      (await run('gc', '--dir', dir, '--keep', '0s', '--grace', '0s', '--keep-checkpoints', '1', '--checkpoint-age', '0s', '--json')).stdout,
    );
    expect(gc.excise).toMatchObject({ dryRun: false, retainFrom: 10, versions: plan.excise.versions, snapshots: plan.excise.snapshots });
    expect(gc.reclaim.deleted).toContain('sales/customers/all.parquet');
    // The checkpoint taken before the excision still held what it removed: a new one replaces it.
    expect(gc.checkpoint.seq).toBeGreaterThan(15);
    expect(gc.prune).toMatchObject({ kept: [gc.checkpoint.seq], deleted: [15] });
    expect(JSON.parse((await run('prune-checkpoints', '--dir', dir, '--keep-checkpoints', '1', '--json')).stdout)).toEqual({
      dryRun: false,
      kept: [gc.checkpoint.seq],
      deleted: [],
      objects: 0,
    });
    expect((await run('prune-checkpoints', '--dir', dir, '--keep-checkpoints', 'all')).stderr).toContain('--keep-checkpoints takes a positive whole number');
    // With no age required, the log compacts into the new checkpoint at once; the catalog reads the same.
    expect(gc.compact).toMatchObject({ through: gc.checkpoint.seq });
    const compactedBefore = JSON.parse((await run('show', '--dir', dir, 'sales.order_history', '--json')).stdout);
    expect(JSON.parse((await run('compact-log', '--dir', dir, '--checkpoint-age', '0s', '--json')).stdout)).toEqual({
      dryRun: false,
      through: null,
      entries: 0,
    });
    expect(JSON.parse((await run('show', '--dir', dir, 'sales.order_history', '--json')).stdout)).toEqual(compactedBefore);
    const gone = await run('show', '--dir', dir, '--at', '2');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('OUT_OF_RETENTION');
    expect((await run('gc', '--dir', dir)).stderr).toContain("required option '--keep <duration>' not specified");
    expect((await run('gc', '--dir', dir, '--keep', 'a month')).stderr).toContain('must be a duration');

    // A second demo into the same directory refuses instead of mixing histories.
    const again = await run('demo', '--dir', dir);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('ALREADY_EXISTS');
  }, 120_000); // a dozen CLI processes, each loading TypeScript through tsx: ~25 s on this VM, more under load

  it('reports errors with their code and a non-zero exit', async () => {
    const dir = path.join(await tempDir(), 'lake');
    expect((await run('init', '--dir', dir)).stdout).toContain('1 snapshot');
    const missing = await run('show', '--dir', dir, '--at', '5');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('SNAPSHOT_NOT_FOUND');
    const badTable = await run('show', '--dir', dir, 'main.nope');
    expect(badTable.stderr).toContain('NOT_FOUND');
    // A snapshot argument is an id, a real time or a tag, exactly: 3.0 and February 30th are refused.
    for (const at of ['3.0', '-1', '2026-02-30', '2026-02-31T23:59']) {
      const wrong = await run('show', '--dir', dir, '--at', at, '--json');
      expect(wrong.code, at).toBe(1);
      expect(JSON.parse(wrong.stderr).error.code, at).toBe('INVALID_ARGUMENT');
    }
    expect((await run('show', '--dir', dir, '--timestamp', '2026-02-30')).stderr).toContain('INVALID_ARGUMENT');
    // A tag that would read as an id or a time cannot be made; tag: names any tag.
    expect((await run('tag', 'create', '3', '0', '--dir', dir)).stderr).toContain('reads as a snapshot id');
    expect((await run('tag', 'create', 'v1', '0', '--dir', dir)).code).toBe(0);
    expect(JSON.parse((await run('show', '--dir', dir, '--at', 'tag:v1', '--json')).stdout).snapshot.id).toBe(0);
    // A missing tag says where the tags are listed in terms that suit the command line too.
    for (const args of [['show', '--tag', 'nope'], ['tag', 'drop', 'nope'], ['sql', "SELECT 1 FROM (SELECT 1) t, main.nothing AT (VERSION => 'nope')"]]) {
      const noTag = await run(...args, '--dir', dir);
      expect(noTag.stderr, args.join(' ')).toMatch(/TAG_NOT_FOUND: .*tag "nope" does not exist; catalog\.tags\(\) and strata tag list list the tags/);
    }
    expect((await run('frobnicate')).code).toBe(2);
    expect((await run('show', '--bogus')).code).toBe(2);
  }, 120_000); // eighteen CLI processes through tsx: ~30 s on this VM under load

  it('no failure reaches a person as a stack trace: a code and a message, as JSON with --json', async () => {
    const dir = path.join(await tempDir(), 'lake');
    expect((await run('init', '--dir', dir)).code).toBe(0);
    // A literal JSON cannot carry once made the parser's JSON.parse throw a raw SyntaxError.
    const asJson = await run('sql', '--dir', dir, '--json', 'SELECT 1e400 AS x');
    expect(asJson.stderr).not.toMatch(/\n\s+at /);
    if (asJson.code !== 0) expect(JSON.parse(asJson.stderr)).toMatchObject({ error: { code: expect.stringMatching(/^[A-Z_]+$/), message: expect.any(String) } });
    const asText = await run('sql', '--dir', dir, 'SELECT 1e400 AS x');
    if (asText.code !== 0) expect(asText.stderr).toMatch(/^strata: [A-Z_]+: [^\n]+\n$/);
  });

  it('an error Strata did not foresee is INTERNAL, says it is a bug and what to do; its stack only with STRATA_DEBUG', () => {
    const raw = failureOf(new TypeError("Cannot read properties of undefined (reading 'x')"));
    expect(raw).toMatchObject({ code: 'INTERNAL', exit: 1 });
    expect(raw.message).toMatch(/^TypeError: Cannot read properties of undefined \(reading 'x'\) — .*a bug: please report it .*STRATA_DEBUG=1/);
    expect(raw.message).not.toMatch(/\n\s+at /);
    expect(failureOf(new StrataError('CORRUPT', 'entry 7 is damaged'))).toEqual({ code: 'CORRUPT', message: 'entry 7 is damaged', exit: 1 });
  });
});
