// Where a warm commit's time goes, by layer: the three commit shapes whose targets are not met, each run
// once without the profiler (its time per commit) and once under V8's sampling profiler (the shares of that
// time). A flat table — no layer near half — says that no single change meets a target the commit misses by
// half; a layer that dominates says where to look. Only Strata is profiled: the peer's work is native code.
import { mkdtemp, rm } from 'node:fs/promises';
import { type Profiler, Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openStrata } from './drivers/strata.js';
import { fmt, measureConcurrent, stats } from './harness.js';
import { createTables, files } from './workloads.js';

export interface ProfileSizes {
  tables: number;
  /** Commits made before anything is timed, and then timed (once bare, once profiled); a fifth as many of 100 files. */
  warm: number;
  timed: number;
}

interface Shape {
  name: string;
  durable: boolean;
  callers: number;
  files: number;
  /** Of the sizes' commits, the part this shape makes (as the workloads make a fifth as many 100-file commits). */
  part: number;
}

const SHAPES: Shape[] = [
  { name: 'one file, relaxed', durable: false, callers: 1, files: 1, part: 1 },
  { name: 'one file, 8 callers, durable', durable: true, callers: 8, files: 1, part: 1 },
  { name: '100 files, durable', durable: true, callers: 1, files: 100, part: 1 / 5 },
];

/** Native functions that are the system calls of node:fs (the profiler names them without a script). */
const FS_CALLS = new Set(['writeBuffer', 'writeString', 'read', 'fstat', 'fdatasync', 'fsync', 'open', 'close', 'ftruncate', 'readdir', 'link', 'unlink']);

type Frame = Profiler.ProfileNode['callFrame'];

/**
 * The layer of a sampled frame: this project's directories, the libraries, the file system, the runtime. An
 * addon's native function has neither name nor script (LevelDB's put and get, flock): it counts for the
 * library that called it.
 */
function layerOf(frame: Frame, caller: Frame | undefined): string {
  const { functionName: fn, url } = frame;
  if (fn === '(garbage collector)') return 'garbage collection';
  if (fn === '(idle)') return 'idle (syncs and LevelDB writes off this thread)';
  if (fn === '(program)') return 'V8 itself (compiling, runtime calls)';
  if (url === '' && FS_CALLS.has(fn)) return 'system calls (node:fs)';
  if (url === '' && fn === '' && caller !== undefined) return layerOf(caller, undefined);
  const lib = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (lib === 'classic-level' || lib === 'abstract-level' || lib?.startsWith('level-')) return 'LevelDB (classic-level and the store itself)';
  if (lib === 'fs-ext') return 'flock (fs-ext)';
  if (lib !== undefined) return lib;
  const own = /\/(src\/[^/]+|keys|gc)\/[^/]+$/.exec(url)?.[1];
  if (own !== undefined) return own === 'keys' ? 'keys/ (key and value codecs)' : `${own}/`;
  return 'Node (buffers, promises, timers, other built-ins)';
}

/** Shares of the samples by layer, largest first. */
function sharesByLayer(profile: Profiler.Profile) {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const callers = new Map<number, Frame>();
  for (const n of profile.nodes) for (const child of n.children ?? []) callers.set(child, n.callFrame);
  const counts = new Map<string, number>();
  const samples = profile.samples ?? [];
  for (const id of samples) {
    const layer = layerOf(frames.get(id)!, callers.get(id));
    counts.set(layer, (counts.get(layer) ?? 0) + 1);
  }
  return [...counts].map(([layer, n]) => [layer, n / samples.length] as const).sort((a, b) => b[1] - a[1]);
}

/** The shape's commits, through the suite's own Strata driver, as the commit workloads make them. */
async function profileShape(shape: Shape, z: ProfileSizes) {
  const dir = await mkdtemp(path.join(tmpdir(), 'strata-bench-profile-'));
  const d = await openStrata({ dir, durable: shape.durable });
  const session = new Session();
  try {
    await createTables(d, z.tables);
    let made = 0;
    const run = (n: number) => {
      const commits = Math.max(shape.callers, Math.round(n * shape.part));
      return measureConcurrent(commits, shape.callers, 1, () => d.addFiles(`t${made % z.tables}`, files(made++ * shape.files, shape.files)));
    };
    await run(z.warm);
    const usPerCommit = 1e6 / stats(await run(z.timed)).perSec;
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    await run(z.timed);
    const { profile } = await session.post('Profiler.stop');
    return { usPerCommit, shares: sharesByLayer(profile) };
  } finally {
    session.disconnect();
    await d.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function commitProfileBench(z: ProfileSizes, out: (s?: string) => void): Promise<void> {
  out("\n### Where a warm commit's time goes\n");
  out(
    `Each shape on a catalog of ${z.tables} tables, in turn: ${z.warm} commits untimed, ${z.timed} timed without the profiler ` +
      '(µs per commit: wall time over the block), and as many again under V8\'s sampling profiler (a sample every 100 µs), ' +
      'whose samples give each layer its share; a layer\'s µs is that share of the unprofiled time. 100-file commits are a ' +
      'fifth as many. Self time: a sample counts for the layer whose code was running, not for its caller\'s.\n',
  );
  for (const shape of SHAPES) {
    const { usPerCommit, shares } = await profileShape(shape, z);
    out(`**${shape.name}**: ${fmt(usPerCommit)} µs per commit${shape.callers > 1 ? ` (wall time over ${shape.callers} callers)` : ''}.\n`);
    out('| layer | share | µs per commit |');
    out('| --- | ---: | ---: |');
    for (const [layer, share] of shares.filter(([, s]) => s >= 0.01)) out(`| ${layer} | ${(share * 100).toFixed(1)}% | ${fmt(share * usPerCommit)} |`);
    const rest = shares.filter(([, s]) => s < 0.01);
    if (rest.length > 0) out(`| ${rest.length} others, under 1% each | ${(rest.reduce((a, [, s]) => a + s, 0) * 100).toFixed(1)}% | |`);
    out();
  }
}
