// One soak process: role.ts <role> <config JSON>, the role being writer-<w>, reader-<i>, follower, gc or
// compactor. Each works until the config's deadline, writes its metrics (RSS, counts) every two seconds and
// its violations at the end to <out>/<role>.metrics.jsonl, and exits 0 (1 if it could not run at all).
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Catalog, isStrataError } from '../../src/index.js';
import { seeded } from '../support/random.js';
import { journalFile, metricsFile, openShared, type SoakConfig, TABLE } from './config.js';
import { DONE, JournalFollower, type JournalLine, type Totals, TOTALS_SQL, totalsOf } from './journal.js';

const [role, configJson] = process.argv.slice(2) as [string, string];
const config = JSON.parse(configJson) as SoakConfig;
const counts: Record<string, number> = {};
const violations: string[] = [];
const count = (name: string, by = 1) => (counts[name] = (counts[name] ?? 0) + by);
const running = () => Date.now() < config.until;
const metrics = metricsFile(config, role);
const sample = () => fs.appendFileSync(metrics, `${JSON.stringify({ t: Date.now(), rss: process.memoryUsage().rss, counts })}\n`);
// The last counts, once the catalog is closed: its RSS then says nothing about the run.
const last = () => fs.appendFileSync(metrics, `${JSON.stringify({ t: Date.now(), counts, closed: true })}\n`);
const sampler = setInterval(sample, 2000);

/**
 * Errors a soak process meets in normal running, counted and not violations: a lost race for writers and
 * the compactor; a snapshot GC let go, for the follower (it holds no lease). A pinned reader's own pin is
 * the one other place (see reader): once a lease holds the snapshot, OUT_OF_RETENTION is a violation.
 */
const EXPECTED = new Set(role === 'follower' ? ['OUT_OF_RETENTION'] : ['CONFLICT']);

async function guarded(what: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (e) {
    if (isStrataError(e) && EXPECTED.has(e.code)) count(`${e.code.toLowerCase()}s`);
    else violations.push(`${role}: ${what}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
}

async function writer(c: Catalog, w: number): Promise<void> {
  const random = seeded(config.seed * 31 + w);
  const rows = new Map<number, number>(); // n → v: this writer's model of its rows
  const journal = journalFile(config, w);
  let next = 0;
  while (running()) {
    const pick = random();
    let sql: string;
    let apply: () => void;
    let op: JournalLine['op'];
    if (pick < 0.6 || rows.size < 30) {
      const ns = Array.from({ length: 1 + Math.floor(random() * 5) }, () => next++);
      op = 'insert';
      sql = `INSERT INTO ${TABLE} VALUES ${ns.map((n) => `(${w}, ${n}, 0)`).join(', ')}`;
      apply = () => ns.forEach((n) => rows.set(n, 0));
    } else if (pick < 0.85) {
      const m = Math.floor(random() * 7);
      op = 'update';
      sql = `UPDATE ${TABLE} SET v = v + 1 WHERE w = ${w} AND n % 7 = ${m}`;
      apply = () => rows.forEach((v, n) => n % 7 === m && rows.set(n, v + 1));
    } else {
      const m = Math.floor(random() * 11);
      const below = next - 20;
      op = 'delete';
      sql = `DELETE FROM ${TABLE} WHERE w = ${w} AND n % 11 = ${m} AND n < ${below}`;
      apply = () => [...rows.keys()].forEach((n) => n % 11 === m && n < below && rows.delete(n));
    }
    const started = performance.now();
    await guarded(op, async () => {
      const { snapshot, rows: answer } = await c.sql(sql);
      const latencyMs = performance.now() - started;
      // A statement that matched no row commits nothing: it answers at the snapshot it read.
      if (Number(answer[0]?.Count) === 0) count('statements that changed nothing');
      apply();
      const totals: Totals = { rows: rows.size, sumN: 0, sumV: 0 };
      rows.forEach((v, n) => ((totals.sumN += n), (totals.sumV += v)));
      const line: JournalLine = { snapshot: snapshot!, op, t: Date.now(), latencyMs, ...totals };
      fs.appendFileSync(journal, `${JSON.stringify(line)}\n`);
      count(`${op}s`);
    });
  }
  fs.appendFileSync(journal, `${JSON.stringify(DONE)}\n`);
}

/** Compares the table at `snapshot` with the writers' journals, once every journal has reached it. */
async function check(c: Catalog, journals: JournalFollower[], snapshot: number, what: string): Promise<void> {
  for (;;) {
    journals.forEach((j) => j.poll());
    if (journals.every((j) => j.covers(snapshot))) break;
    // A writer that stopped without finishing its journal: said once, instead of waiting to be killed.
    if (Date.now() > config.until + 60_000) throw new Error(`the writers' journals never reached snapshot ${snapshot}`);
    await sleep(50);
  }
  const got = totalsOf((await c.sql(TOTALS_SQL, { at: { snapshot } })).rows, config.writers);
  const want = journals.map((j) => j.totalsAt(snapshot));
  count('checks');
  if (JSON.stringify(got) !== JSON.stringify(want)) violations.push(`${role}: ${what} at snapshot ${snapshot}: the table gives ${JSON.stringify(got)}, the writers' models ${JSON.stringify(want)}`);
}

/** Where two listings part: the first file each has that the other lacks. */
function firstDifference(before: string, after: string): string {
  const a = JSON.parse(before) as unknown[];
  const b = JSON.parse(after) as unknown[];
  const only = (x: unknown[], y: unknown[]) => x.map((v) => JSON.stringify(v)).find((v) => !y.some((w) => JSON.stringify(w) === v));
  return `${a.length} files then, ${b.length} now; then ${only(a, b) ?? '—'}, now ${only(b, a) ?? '—'}`;
}

const followers = () => Array.from({ length: config.writers }, (_, w) => new JournalFollower(journalFile(config, w)));

async function reader(c: Catalog, i: number): Promise<void> {
  const random = seeded(config.seed * 97 + i);
  const journals = followers();
  while (running()) {
    await guarded('pinned read', async () => {
      await c.refresh();
      const head = await c.reader();
      const newest = head.snapshot.id;
      await head.close();
      const from = await c.retainFrom();
      const oldest = Math.max(from, config.tableSince);
      const snapshot = oldest + Math.floor(random() * (newest - oldest + 1));
      let pinned;
      try {
        pinned = await c.reader({ snapshot, lease: { ttlMs: 60_000, holder: role } });
      } catch (e) {
        // retain-from passed the snapshot between choosing it and pinning it
        if (isStrataError(e) && e.code === 'OUT_OF_RETENTION') return void count('out_of_retentions');
        throw e;
      }
      try {
        count('pins');
        // The files a pinned snapshot reads, what each is and their order must not change.
        const pinnedFiles = async () => JSON.stringify(await pinned.dataFiles('main', 'events'));
        const files = await pinnedFiles();
        const until = Date.now() + 1000 + random() * 5000;
        while (Date.now() < until && running()) {
          await check(c, journals, snapshot, 'a pinned read');
          const now = await pinnedFiles();
          if (now !== files) violations.push(`${role}: the files of snapshot ${snapshot} changed while it was pinned: ${firstDifference(files, now)}`);
          await sleep(200);
        }
      } finally {
        await pinned.close();
      }
    });
  }
}

async function follower(c: Catalog): Promise<void> {
  const journals = followers();
  let last = -1;
  while (running()) {
    await guarded('follow', async () => {
      const r = await c.reader();
      const head = r.snapshot.id;
      await r.close();
      if (head < last) violations.push(`${role}: the followed head went back from ${last} to ${head}`);
      last = head;
      await check(c, journals, head, 'the followed head');
      journals.forEach((j) => j.poll());
      const newest = Math.max(...journals.map((j) => j.lines.at(-1)?.snapshot ?? 0));
      counts.lag = Math.max(counts.lag ?? 0, newest - head);
    });
    await sleep(500);
  }
}

async function gc(c: Catalog): Promise<void> {
  let previous = -1;
  for (let round = 0; running(); round++) {
    await guarded('gc round', async () => {
      const advanced = await c.advanceRetainFrom({ olderThan: new Date(Date.now() - config.retainMs) });
      if (advanced.retainFrom < previous) violations.push(`${role}: retain-from went back from ${previous} to ${advanced.retainFrom}`);
      if (advanced.retainFrom > previous) count('advances');
      if (advanced.clampedBy) count('clamped by a lease');
      previous = advanced.retainFrom;
      const excised = await c.excise();
      count('excised versions', excised.versions);
      count('excised snapshots', excised.snapshots);
      const reclaimed = await c.reclaimFiles({ graceMs: config.graceMs });
      count('reclaimed files', reclaimed.deleted.length);
      if (reclaimed.failed.length > 0) violations.push(`${role}: reclamation failed: ${JSON.stringify(reclaimed.failed)}`);
      if (round % 5 === 4) {
        await c.checkpoint();
        count('checkpoints');
        count('log entries compacted', (await c.compactLog({ minAgeMs: config.graceMs })).entries);
        count('checkpoints pruned', (await c.pruneCheckpoints({ keep: 2, minAgeMs: config.graceMs })).deleted.length);
      }
    });
    await sleep(1000);
  }
}

async function compactor(c: Catalog): Promise<void> {
  while (running()) {
    await guarded('compact', async () => {
      const done = await c.compact('main', 'events', { targetFileSize: 1 << 20 });
      if (done.snapshot !== null) {
        count('compactions');
        count('files compacted', done.removed.dataFiles);
      }
    });
    await sleep(3000);
  }
}

const catalog = await openShared(config, role, role === 'follower' ? { readOnly: true, followIntervalMs: 250 } : {});
try {
  if (role.startsWith('writer-')) await writer(catalog, Number(role.slice(7)));
  else if (role.startsWith('reader-')) await reader(catalog, Number(role.slice(7)));
  else if (role === 'follower') await follower(catalog);
  else if (role === 'gc') await gc(catalog);
  else if (role === 'compactor') await compactor(catalog);
  else throw new Error(`unknown role ${role}`);
} finally {
  clearInterval(sampler);
  sample();
  await catalog.close().catch((e: unknown) => violations.push(`${role}: close: ${String(e)}`));
  last();
  fs.appendFileSync(metrics, `${JSON.stringify({ final: true, violations })}\n`);
}
