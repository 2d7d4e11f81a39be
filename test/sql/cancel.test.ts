// Every statement can be stopped (docs/DESIGN.md §8.1): by its time limit (TIMEOUT), its caller's signal or the
// catalog's close() (CANCELLED); DuckDB is interrupted, nothing of the statement commits, and the catalog
// answers the next one. A process that closes its catalog while a statement runs exits by itself.
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { expectCode, openCatalog, runTsx, tempDir } from '../helpers.js';

/** A query that would run for hours: DuckDB counts through a trillion numbers. */
const ENDLESS = 'SELECT count(*) AS n FROM range(1000000000000) r(x) WHERE x % 7 = 3';

async function table(): Promise<Catalog> {
  const c = await openCatalog();
  await c.sql('CREATE TABLE t (id BIGINT, n BIGINT)');
  await c.sql('INSERT INTO t VALUES (1, 10), (2, 20)');
  return c;
}

/** What `p` failed with, and after how many ms. */
async function timed(p: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await p.then(() => undefined, (e: unknown) => e);
  return { error, ms: performance.now() - started };
}

/** The catalog as a reader sees it: every snapshot, and the table's rows. */
async function state(c: Catalog) {
  return { snapshots: (await c.snapshots()).map((s) => s.id), rows: (await c.sql('SELECT * FROM t ORDER BY id')).rows };
}

describe('stopping a statement', () => {
  it('timeoutMs stops a SELECT within twice its limit with TIMEOUT, and the catalog answers the next statement', async () => {
    const c = await table();
    const limit = 600;
    const { error, ms } = await timed(c.sql(ENDLESS, { timeoutMs: limit }));
    await expectCode(Promise.reject(error), 'TIMEOUT', /timeoutMs of 600 ms/);
    expect(ms).toBeLessThan(2 * limit);
    expect((await c.sql('SELECT sum(n)::INT AS s FROM t')).rows).toEqual([{ s: 30 }]);
    // A statement within its limit is not touched.
    expect((await c.sql('SELECT count(*)::INT AS n FROM t', { timeoutMs: 60_000 })).rows).toEqual([{ n: 2 }]);
    await expectCode(c.sql('SELECT 1', { timeoutMs: 0 }), 'INVALID_ARGUMENT', /timeoutMs/);
    await expectCode(c.sql('SELECT 1', { signal: 'stop' as never }), 'INVALID_ARGUMENT', /AbortSignal/);
  });

  it("a signal stops a statement with CANCELLED, whether it aborts before or while it runs; sqlBatches too", async () => {
    const c = await table();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300).unref();
    const { error, ms } = await timed(c.sql(ENDLESS, { signal: controller.signal }));
    await expectCode(Promise.reject(error), 'CANCELLED', /cancelled by its signal/);
    expect(ms).toBeLessThan(5_000);
    await expectCode(c.sql('SELECT 1', { signal: AbortSignal.abort() }), 'CANCELLED');
    const batches = async () => {
      for await (const _ of c.sqlBatches(ENDLESS, { timeoutMs: 300 })) void _;
    };
    await expectCode(batches(), 'TIMEOUT');
    expect((await c.sql('SELECT count(*)::INT AS n FROM t')).rows).toEqual([{ n: 2 }]);
  });

  it('a write stopped commits nothing: INSERT … SELECT, UPDATE, DELETE, and tx.sql inside a transaction', async () => {
    const c = await table();
    const before = await state(c);
    await expectCode(c.sql('INSERT INTO t SELECT x, x FROM range(1000000000000) r(x) WHERE x % 7 = 3', { timeoutMs: 400 }), 'TIMEOUT');
    await expectCode(c.sql(`UPDATE t SET n = (${ENDLESS}) WHERE id = 1`, { timeoutMs: 400 }), 'TIMEOUT');
    await expectCode(c.sql(`DELETE FROM t WHERE id < (${ENDLESS})`, { signal: AbortSignal.timeout(400) }), 'CANCELLED');
    const inTx = c.transaction(async (tx) => {
      await tx.sql('INSERT INTO t VALUES (3, 30)');
      await tx.sql(`INSERT INTO t SELECT 4, (${ENDLESS})`, { timeoutMs: 400 });
    });
    await expectCode(inTx, 'TIMEOUT');
    expect(await state(c)).toEqual(before);
  });

  it('load and compact take timeoutMs and signal, and commit nothing once stopped', async () => {
    const c = await table();
    await c.sql('INSERT INTO t VALUES (3, 30)');
    await c.sql('DELETE FROM t WHERE id = 2');
    const csv = path.join(await tempDir(), 'rows.csv');
    await writeFile(csv, `id,n\n${Array.from({ length: 1000 }, (_, i) => `${i},${i}`).join('\n')}\n`);
    const before = await state(c);
    await expectCode(c.load('main', 't', csv, { signal: AbortSignal.abort() }), 'CANCELLED');
    await expectCode(c.load('main', 't', csv, { timeoutMs: 1 }), 'TIMEOUT');
    await expectCode(c.compact('main', 't', { signal: AbortSignal.abort() }), 'CANCELLED');
    expect(await state(c)).toEqual(before);
    expect((await c.compact('main', 't', { timeoutMs: 60_000 })).snapshot).not.toBeNull();
  });

  it('close() stops what is running: the statement answers CANCELLED', async () => {
    const c = await table();
    const running = timed(c.sql(ENDLESS));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await c.close();
    const { error } = await running;
    await expectCode(Promise.reject(error), 'CANCELLED', /catalog was closed/);
  });

  it('a process that closes its catalog while a statement runs exits by itself', async () => {
    let kill: (() => void) | undefined;
    const child = runTsx(new URL('../fixtures/close-child.ts', import.meta.url), [await tempDir()], (_out, k) => (kill = k));
    // The statement alone would run for hours: a process still there after this long did not exit.
    const hung = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 30_000).unref());
    const outcome = await Promise.race([child, hung]);
    if (outcome === 'hung') kill?.();
    expect(outcome).toEqual({ signal: null, stdout: 'started\nclosed\nstatement: CANCELLED\n' });
  }, 60_000);
});
