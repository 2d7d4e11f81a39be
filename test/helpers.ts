import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, expect } from 'vitest';
import { Catalog, type ErrorCode, isStrataError, type OpenOptions } from '../src/index.js';
import { seeded, seedOf } from './support/random.js';

const dirs: string[] = [];
const catalogs: Catalog[] = [];

afterEach(async () => {
  await Promise.all(catalogs.splice(0).map((c) => c.close()));
});

// Removed once, after the file's tests and every other hook that closes what writes into them (an index a
// test opened itself is closed by its own afterEach, which may run after this file's), with time to spare:
// CI once saw fs.promises.rm of two small directories outlast a 30 s afterEach timeout and fail a test whose
// body had passed (a disk stall or a busy thread pool; which, it did not say). Housekeeping decides no test.
afterAll(() => Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))), 300_000);

/** A fresh temporary directory, removed after the file's tests. */
export async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'strata-test-'));
  dirs.push(d);
  return d;
}

/**
 * A catalog in a fresh temporary directory (or the given options), closed after the test. Its retry jitter
 * is seeded by the test's name, so a failing run retries on the same schedule when replayed.
 */
export async function openCatalog(opts: Partial<OpenOptions> = {}): Promise<Catalog> {
  const random = seeded(seedOf(expect.getState().currentTestName ?? 'strata'));
  // A test's injected clock runs wherever the test moves it: no store's clock is its measure.
  const skew = opts.clock === undefined ? {} : { maxClockSkewMs: null };
  const c = await Catalog.open({ dir: opts.dir ?? (await tempDir()), random, ...skew, ...opts });
  catalogs.push(c);
  return c;
}

/** A deterministic clock that moves one second per reading. */
export function steppingClock(start = Date.UTC(2026, 0, 1)): () => number {
  let t = start;
  return () => (t += 1000);
}

/** Everything a reader can see at one snapshot, as plain data. */
export async function readAll(catalog: Catalog, snapshot: number) {
  const r = await catalog.reader({ snapshot });
  try {
    const schemas = [];
    for (const s of await r.schemas()) {
      const tables = [];
      for (const t of await r.tables(s.name)) {
        tables.push({
          table: await r.table(s.name, t.name),
          dataFiles: await r.dataFiles(s.name, t.name),
          deleteFiles: await r.deleteFiles(s.name, t.name),
        });
      }
      schemas.push({ schema: s, tables, views: await r.views(s.name) });
    }
    return { snapshot: r.snapshot, schemas };
  } finally {
    await r.close();
  }
}

/** Every snapshot's full contents: two equal dumps mean two catalogs no reader can tell apart. */
export async function dumpCatalog(catalog: Catalog) {
  const out = [];
  for (const s of await catalog.snapshots()) out.push(await readAll(catalog, s.id));
  return out;
}

/**
 * Runs a TypeScript fixture in a child process (a real second process: its own index, its own crash).
 * Resolves when it exits normally or by a signal; a non-zero exit code is an error carrying its stderr.
 * `onStdout` sees the output so far each time more arrives, and may kill the child.
 */
export function runTsx(
  script: URL,
  args: string[],
  onStdout?: (stdout: string, kill: () => void) => void,
): Promise<{ signal: NodeJS.Signals | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(script), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      onStdout?.(stdout, () => p.kill('SIGKILL'));
    });
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    // 'close', not 'exit': the process may exit before its last output has been read.
    p.on('close', (code, signal) => {
      if (code !== 0 && signal === null) reject(new Error(`${script.pathname} failed (${code}): ${stderr}`));
      else resolve({ signal, stdout });
    });
  });
}

/** That `p` fails with a StrataError of `code`, its message matching `text` when given. */
export async function expectCode(p: Promise<unknown>, code: ErrorCode, text?: RegExp): Promise<void> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(isStrataError(e, code), String(e)).toBe(true);
  if (text) expect((e as Error).message).toMatch(text);
}
