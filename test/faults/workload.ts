// The fault sweep's workload and its end check (issue 20). Two writers commit to one table through one
// store, a reader pins an early snapshot with a lease, a tag keeps another, and a GC process advances
// retain-from, excises, reclaims, checkpoints, compacts the log and prunes checkpoints; then both writers
// commit again on the compacted log. Every choice is fixed (a stepping clock shared by all, seeded
// randomness, one caller at a time), so the store sees the same operations in the same order on every run:
// the i-th operation of one run is the i-th of the next, and a failure at index i replays.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Catalog, isStrataError, type ObjectStore } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import type { LogLayout } from '../../src/log/open-log.js';
import { seeded } from '../support/random.js';

/** What a caller was told: this snapshot holds these adds and removes (paths). */
export interface Ack {
  snapshot: number;
  adds: string[];
  removes: string[];
}

export interface WorkloadResult {
  acks: Ack[];
  /** The steps that failed, with the error's code (a StrataError's) or its message. */
  failures: { step: string; error: string }[];
  /** Errors that were neither a StrataError nor the fault injected: each one a finding. */
  strays: string[];
}

/** Marks the errors a sweep injects, so that they are told apart from the catalog's own. */
export const INJECTED = 'injected fault';

const COLUMNS = [{ name: 'x', type: 'int64' }];

/** The files the workload's removes name: every other file an acknowledged commit added stays to the head. */
const REMOVED = ['a0.bin', 'b0.bin', 'b1.bin', 'a1.bin', 'b2.bin'];

/** The store the workload's catalogs share, under `root`, and each catalog's own index directory. */
export const storeDir = (root: string) => path.join(root, 'store');
export const indexDir = (root: string, name: string) => path.join(root, `index-${name}`);

/**
 * Runs the workload over `store` (a wrapper of the directory store at storeDir(root)), telling `onAck` of
 * every acknowledged commit as it is acknowledged. A step that fails is recorded and the next one runs, as
 * an application would carry on; a catalog that fails to open is opened once more.
 */
export async function runWorkload(root: string, layout: LogLayout, store: ObjectStore, onAck: (ack: Ack) => void): Promise<WorkloadResult> {
  const result: WorkloadResult = { acks: [], failures: [], strays: [] };
  let t = Date.UTC(2027, 0, 1);
  const clock = () => (t += 1000);
  const ids = new Map<string, number>();

  const attempt = async <T>(step: string, run: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await run();
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (isStrataError(e)) result.failures.push({ step, error: e.code });
      else if (message.includes(INJECTED)) result.failures.push({ step, error: 'injected' });
      else result.strays.push(`${step}: ${e instanceof Error ? (e.stack ?? message) : message}`);
      return undefined;
    }
  };
  const open = async (name: string) => {
    const opts = {
      dir: indexDir(root, name),
      store,
      logLayout: layout,
      clock,
      maxClockSkewMs: null,
      random: seeded(name.length * 7919),
      writerName: name,
      checkpointEvery: 0,
    };
    return (await attempt(`open ${name}`, () => Catalog.open(opts))) ?? (await attempt(`open ${name} again`, () => Catalog.open(opts)));
  };
  const commit = async (c: Catalog | undefined, step: string, adds: string[], removes: string[] = []) => {
    if (c === undefined) return;
    for (const p of adds) writeDataFile(root, p);
    const done = await attempt(step, () =>
      c.transaction(async (tx) => {
        if (step === 'create table') await tx.createTable('main', 't', COLUMNS);
        for (const p of adds) ids.set(p, await tx.addDataFile('main', 't', { path: p, recordCount: 1, fileSizeBytes: fileBytes(p).length }));
        for (const p of removes) await tx.removeDataFile('main', 't', ids.get(p)!);
      }),
    );
    if (done?.snapshot === undefined || done.snapshot === null) return;
    const ack = { snapshot: done.snapshot, adds, removes };
    result.acks.push(ack);
    onAck(ack);
  };
  // Removes only what an acknowledged commit added: its id is known.
  const acked = (...paths: string[]) => paths.filter((p) => result.acks.some((a) => a.adds.includes(p)));

  const a = await open('a');
  const b = await open('b');
  await commit(a, 'create table', []);
  for (let i = 0; i < 3; i++) {
    await commit(a, `a adds a${i}`, [`a${i}.bin`]);
    await commit(b, `b adds b${i}`, [`b${i}.bin`]);
  }
  const tagAt = result.acks.find((x) => x.adds.includes('a0.bin'))?.snapshot;
  if (a && tagAt !== undefined) await attempt('tag', () => a.createTag('kept', tagAt));
  const leased = b && (await attempt('lease', () => b.reader({ lease: { ttlMs: 3_600_000, holder: 'sweep' } })));
  await commit(a, 'a adds a3', ['a3.bin']);
  await commit(b, 'b removes a0 b0 b1', [], acked(...REMOVED.slice(0, 3)));
  if (a) await attempt('checkpoint', () => a.checkpoint());
  await commit(b, 'b adds b3', ['b3.bin']);
  await commit(a, 'a removes a1 b2', [], acked(...REMOVED.slice(3)));
  if (leased) await attempt('lease released', () => leased.close());

  const gc = await open('gc');
  if (gc) {
    await attempt('refresh', () => gc.refresh());
    const head = (await attempt('head', () => gc.snapshots()))?.at(-1)?.id;
    if (head !== undefined) await attempt('advance retain-from', () => gc.advanceRetainFrom({ snapshot: head }));
    await attempt('excise', () => gc.excise({ batchSize: 3 }));
    await attempt('reclaim', () => gc.reclaimFiles({ graceMs: 0 }));
    await attempt('checkpoint (gc)', () => gc.checkpoint());
    await attempt('compact log', () => gc.compactLog({ minAgeMs: 0 }));
    await attempt('prune checkpoints', () => gc.pruneCheckpoints({ keep: 1, minAgeMs: 0 }));
  }
  await commit(a, 'a adds a4', ['a4.bin']);
  await commit(b, 'b adds b4', ['b4.bin']);
  for (const [name, c] of [['a', a], ['b', b], ['gc', gc]] as const) if (c) await attempt(`close ${name}`, () => c.close());
  return result;
}

/** The file's bytes: its name, so that a file written twice is the same file. */
const fileBytes = (p: string) => Buffer.from(`data file ${p}\n`);

function writeDataFile(root: string, p: string): void {
  const file = path.join(storeDir(root), 'data', p);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, fileBytes(p));
}

/**
 * What must hold however the run ended: the catalog opens, from a fresh index and from each writer's own,
 * `verify --files` is clean, snapshot ids are gap-free from retain-from to the head, every acknowledged
 * commit is there once at its snapshot (unless it fell below retain-from untagged), nothing is there twice,
 * and every file a retained snapshot reads exists. The violations found, as sentences; none is a pass.
 */
export async function checkEnd(root: string, layout: LogLayout, acks: readonly Ack[]): Promise<string[]> {
  const violations: string[] = [];
  const fresh = path.join(root, `index-check-${fs.readdirSync(root).length}`);
  for (const dir of [fresh, indexDir(root, 'a'), indexDir(root, 'b')]) {
    let c: Catalog;
    try {
      c = await Catalog.open({ dir, store: new DirectoryStore(storeDir(root)), logLayout: layout, maxClockSkewMs: null, checkpointEvery: 0 });
    } catch (e) {
      violations.push(`${path.basename(dir)}: does not open: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    try {
      violations.push(...(await checkCatalog(c, acks)).map((v) => `${path.basename(dir)}: ${v}`));
    } finally {
      await c.close();
    }
  }
  return violations;
}

async function checkCatalog(c: Catalog, acks: readonly Ack[]): Promise<string[]> {
  const out: string[] = [];
  const report = await c.verify({ files: true });
  for (const v of report.violations) out.push(`verify: ${v.invariant} ${v.object}: ${v.message}`);
  const ids: number[] = (await c.snapshots()).map((s) => s.id);
  const retainFrom: number = await c.retainFrom();
  const tagged = new Set<number>((await c.tags()).map((t) => t.snapshot));
  const head = ids.at(-1) ?? -1;
  const expected = [...ids.filter((id) => id < retainFrom && tagged.has(id)), ...range(retainFrom, head)];
  if (JSON.stringify(ids) !== JSON.stringify(expected)) out.push(`snapshots ${JSON.stringify(ids)}, not gap-free from retain-from ${retainFrom} with tags ${JSON.stringify([...tagged])}`);
  const seen = new Set<number>();
  for (const ack of acks) {
    if (seen.has(ack.snapshot)) out.push(`snapshot ${ack.snapshot} acknowledged twice`);
    seen.add(ack.snapshot);
    if (ack.snapshot > head) out.push(`acknowledged snapshot ${ack.snapshot} is past the head ${head}`);
  }
  for (const id of ids) {
    const r = await c.reader({ snapshot: id });
    try {
      const files = (await r.tables('main')).some((t) => t.name === 't') ? await r.dataFiles('main', 't') : [];
      const paths = files.map((f) => f.path);
      if (new Set(paths).size !== paths.length) out.push(`snapshot ${id}: a file listed twice: ${paths.join(', ')}`);
      for (const f of files) if (!fs.existsSync(c.dataFileLocation(f.path))) out.push(`snapshot ${id} reads ${f.path}, which is gone`);
      if (id === head) {
        for (const p of acks.flatMap((x) => x.adds)) if (!REMOVED.includes(p) && !paths.includes(p)) out.push(`the head ${id} lost ${p}, added by an acknowledged commit`);
        // an acknowledged remove below retain-from is checked here, where its snapshot is gone
        for (const p of acks.flatMap((x) => x.removes)) if (paths.includes(p)) out.push(`the head ${id} lists ${p}, removed by an acknowledged commit`);
      }
      for (const ack of acks.filter((x) => x.snapshot === id)) {
        for (const p of ack.adds) {
          const added = files.find((f) => f.path === p);
          if (added?.beginSnapshot !== id) out.push(`snapshot ${id} was acknowledged adding ${p}, and ${added ? `it began at ${added.beginSnapshot}` : `lists ${paths.join(', ')}`}`);
        }
        for (const p of ack.removes) if (paths.includes(p)) out.push(`snapshot ${id} was acknowledged removing ${p}, and still lists it`);
      }
    } finally {
      await r.close();
    }
  }
  for (const ack of acks) {
    if ((ack.snapshot >= retainFrom || tagged.has(ack.snapshot)) && !ids.includes(ack.snapshot)) out.push(`acknowledged snapshot ${ack.snapshot} is gone`);
  }
  return out;
}

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
