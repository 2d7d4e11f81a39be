// The soak's end: the catalog checked from a fresh index (verify --files, gap-free ids, every acknowledged
// commit there and answering as its writer's model says), each process's violations, counts and RSS, and
// the commit latency over time, drawn.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { journalFile, metricsFile, openShared, type SoakConfig } from './config.js';
import { JournalFollower, TOTALS_SQL, totalsOf } from './journal.js';
import { lineChart } from './plot.js';

interface Sample {
  t: number;
  rss: number;
  counts: Record<string, number>;
}

export interface SoakReport {
  minutes: number;
  store: string;
  counts: Record<string, Record<string, number>>;
  rss: Record<string, { startMiB: number; warmMiB: number; endMiB: number }>;
  latency: { from: number; to: number; commits: number; p50Ms: number; p99Ms: number }[];
  final: { snapshots: number; retainFrom: number; head: number; verifiedKeys: number; verifiedFiles: number; checkedSnapshots: number };
  violations: string[];
  lines: string[];
}

const MiB = 1 << 20;
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

export async function summarise(config: SoakConfig, roles: string[], exits: { role: string; code: number | null; signal: NodeJS.Signals | null }[], started: number): Promise<SoakReport> {
  const violations: string[] = [];
  for (const e of exits) if (e.code !== 0) violations.push(`${e.role} exited ${e.signal ?? e.code} (see ${e.role}.log)`);

  const counts: SoakReport['counts'] = {};
  const rss: SoakReport['rss'] = {};
  const rssSeries = [];
  const durationMs = config.until - started;
  for (const role of roles) {
    const file = metricsFile(config, role);
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Sample | { final: true; violations: string[] }) : [];
    const samples = lines.filter((l): l is Sample => 'rss' in l && typeof l.rss === 'number');
    const final = lines.find((l) => 'final' in l) as { violations: string[] } | undefined;
    if (!final) violations.push(`${role} left no final report`);
    violations.push(...(final?.violations ?? []));
    counts[role] = (lines.filter((l): l is Sample => 'counts' in l).at(-1) ?? samples.at(-1))?.counts ?? {};
    if (samples.length === 0) continue;
    // Warm: the first sample a fifth of the run after the process's own first, once caches and DuckDB
    // have settled (processes start seconds apart on a loaded machine).
    const warm = samples.find((s) => s.t - samples[0]!.t >= durationMs / 5) ?? samples[0]!;
    const end = samples.at(-1)!;
    rss[role] = { startMiB: samples[0]!.rss / MiB, warmMiB: warm.rss / MiB, endMiB: end.rss / MiB };
    // Flat: what the last four fifths added stays under a quarter of the warm size plus 48 MiB.
    if (end.rss > warm.rss * 1.25 + 48 * MiB) violations.push(`${role}: RSS grew from ${(warm.rss / MiB).toFixed(0)} MiB (warm) to ${(end.rss / MiB).toFixed(0)} MiB`);
    rssSeries.push({ name: role, points: samples.map((s) => [(s.t - started) / 1000, s.rss / MiB] as [number, number]) });
  }

  const journals = Array.from({ length: config.writers }, (_, w) => new JournalFollower(journalFile(config, w)));
  journals.forEach((j) => j.poll());
  const commits = journals.flatMap((j) => j.lines).sort((a, b) => a.t - b.t);
  const buckets = 20;
  const latency: SoakReport['latency'] = [];
  for (let b = 0; b < buckets; b++) {
    const from = started + (b * durationMs) / buckets;
    const to = started + ((b + 1) * durationMs) / buckets;
    const ms = commits.filter((c) => c.t >= from && c.t < to).map((c) => c.latencyMs).sort((x, y) => x - y);
    latency.push({ from: (from - started) / 1000, to: (to - started) / 1000, commits: ms.length, p50Ms: quantile(ms, 0.5), p99Ms: quantile(ms, 0.99) });
  }
  const mid = (l: (typeof latency)[number]) => (l.from + l.to) / 2;
  const busy = latency.filter((l) => l.commits > 0);
  fs.writeFileSync(
    path.join(config.out, 'latency.svg'),
    lineChart(`commit latency, ${config.writers} writers (SQL insert, update, delete), ${'dir' in config.store ? 'directory store' : 'S3'}`, 'seconds into the run', 'ms per commit', [
      { name: 'p50', points: busy.map((l) => [mid(l), l.p50Ms]) },
      { name: 'p99', points: busy.map((l) => [mid(l), l.p99Ms]) },
    ]),
  );
  fs.writeFileSync(path.join(config.out, 'rss.svg'), lineChart('resident set size per process', 'seconds into the run', 'MiB', rssSeries));

  const c = await openShared(config, 'final');
  let final: SoakReport['final'];
  try {
    const verified = await c.verify({ files: true });
    for (const v of verified.violations) violations.push(`verify: ${v.invariant} ${v.object}: ${v.message}`);
    const ids: number[] = (await c.snapshots()).map((s) => s.id);
    const retainFrom: number = await c.retainFrom();
    const head = ids.at(-1)!;
    const gapFree = ids.length === head - retainFrom + 1 && ids[0] === retainFrom;
    if (!gapFree) violations.push(`snapshots are not gap-free from retain-from ${retainFrom} to ${head}: ${ids.length} of them`);
    const present = new Set(ids);
    const lost = commits.filter((x) => x.snapshot >= retainFrom && !present.has(x.snapshot));
    if (lost.length > 0) violations.push(`${lost.length} acknowledged commits are gone, first ${JSON.stringify(lost[0])}`);
    // The head and an even sample of the retained snapshots answer as the writers' models say.
    const sample = [...new Set([...Array.from({ length: 20 }, (_, i) => retainFrom + Math.floor((i * (head - retainFrom)) / 19)), head])];
    for (const s of sample) {
      const got = totalsOf((await c.sql(TOTALS_SQL, { at: { snapshot: s } })).rows, config.writers);
      const want = journals.map((j) => j.totalsAt(s));
      if (JSON.stringify(got) !== JSON.stringify(want)) violations.push(`snapshot ${s}: the table gives ${JSON.stringify(got)}, the writers' models ${JSON.stringify(want)}`);
    }
    final = { snapshots: ids.length, retainFrom, head, verifiedKeys: verified.checked.keys, verifiedFiles: verified.checked.files, checkedSnapshots: sample.length };
  } finally {
    await c.close();
  }

  const total = (name: string) => Object.values(counts).reduce((sum, c) => sum + (c[name] ?? 0), 0);
  const minutes = durationMs / 60_000;
  const lines = [
    `statements acknowledged ${commits.length} (inserts ${total('inserts')}, updates ${total('updates')}, deletes ${total('deletes')}; ${total('statements that changed nothing')} matched no row and made no commit), conflicts ${total('conflicts')}`,
    `reads checked against the models ${total('checks')} (pins ${total('pins')}, snapshots gone before the pin ${total('out_of_retentions')}); follower's largest lag ${counts.follower?.lag ?? 0} snapshots`,
    `gc: retain-from advances ${total('advances')} (clamped by a lease ${total('clamped by a lease')}), excised versions ${total('excised versions')} and snapshots ${total('excised snapshots')}, reclaimed files ${total('reclaimed files')}, checkpoints ${total('checkpoints')}, log entries compacted ${total('log entries compacted')}, checkpoints pruned ${total('checkpoints pruned')}`,
    `compactions ${total('compactions')} (${total('files compacted')} files merged)`,
    `final: ${final.snapshots} snapshots ${final.retainFrom}–${final.head}, verify --files clean over ${final.verifiedKeys} keys and ${final.verifiedFiles} files: ${violations.some((v) => v.startsWith('verify')) ? 'no' : 'yes'}; ${final.checkedSnapshots} snapshots checked against the models`,
    ...Object.entries(rss).map(([role, r]) => `rss ${role}: ${r.startMiB.toFixed(0)} MiB at start, ${r.warmMiB.toFixed(0)} warm, ${r.endMiB.toFixed(0)} at the end`),
    `commit latency p50/p99 (ms) by ${(durationMs / buckets / 1000).toFixed(0)} s: ${latency.map((l) => `${l.p50Ms.toFixed(0)}/${l.p99Ms.toFixed(0)}`).join(' ')}`,
    `violations ${violations.length}`,
  ];
  return { minutes, store: 'dir' in config.store ? 'dir' : 's3', counts, rss, latency, final, violations, lines };
}
