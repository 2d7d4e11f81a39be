// What a statement's first read of a file waits for before DuckDB reads it (decisions 0013, 0024, 0040, 0041):
// the file's bytes, then its field ids (its footer, read in this process) and its delete file's positions (a
// DuckDB query, started first) at once, not one after the other (one after the other they doubled the bench's
// one-file range query). And what a later
// statement over the same files costs: no check reads anything again. Real LevelDB, Parquet and DuckDB; the
// checks are only watched.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as path from 'node:path';
import { DuckDBConnection } from '@duckdb/node-api';
import { Catalog, isStrataError } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { DeletePositionChecks } from '../../src/sql/delete-positions.js';
import { FieldIdChecks } from '../../src/sql/file-columns.js';
import { localMismatch } from '../../src/store/recorded-bytes.js';
import { tempDir } from '../helpers.js';
import { deleteFileBytes } from '../support/delete-file.js';

// Every byte check of a local file, counted (the module's own function, wrapped).
vi.mock('../../src/store/recorded-bytes.js', async (original) => {
  const m = await original<typeof import('../../src/store/recorded-bytes.js')>();
  return { ...m, localMismatch: vi.fn(m.localMismatch) };
});

const byteChecks = vi.mocked(localMismatch);
let dir: string;

beforeAll(async () => {
  dir = await tempDir();
  const c = await Catalog.open({ dir });
  await c.sql('CREATE TABLE t (id BIGINT, v DOUBLE)');
  await c.sql('INSERT INTO t SELECT i, i / 4 FROM range(0, 1000) r(i)');
  await c.sql('INSERT INTO t SELECT i, i / 4 FROM range(1000, 2000) r(i)');
  await c.sql('DELETE FROM t WHERE id % 100 = 7'); // a delete file for each data file
  await c.close();
}, 60_000);

afterAll(() => vi.restoreAllMocks());

/** Calls of the two checks that are DuckDB queries, as they start and settle, in order. */
function watch(): string[] {
  const events: string[] = [];
  const watched = <T extends object>(proto: T, method: keyof T & string, name: string) => {
    const own = proto[method] as (...a: unknown[]) => Promise<unknown>;
    vi.spyOn(proto, method as never).mockImplementation(function (this: unknown, ...a: unknown[]) {
      events.push(`${name} start`);
      return own.apply(this, a).finally(() => events.push(`${name} end`));
    } as never);
  };
  watched(FieldIdChecks.prototype, 'carried', 'field ids');
  watched(DeletePositionChecks.prototype, 'trusted', 'positions');
  return events;
}

describe("a statement's first read of a file", () => {
  it('checks the field ids and the delete positions at once, and a later statement over the same files reads nothing again', async () => {
    const events = watch();
    const reads = vi.spyOn(DeletePositionChecks.prototype as unknown as { readKept: () => unknown }, 'readKept');
    const c = await Catalog.open({ dir }); // afresh: this process has checked none of its files
    try {
      byteChecks.mockClear();
      const first = await c.sql('SELECT count(*)::INT AS n FROM t WHERE id BETWEEN 100 AND 300');
      expect(first.rows).toEqual([{ n: 199 }]);
      expect(first.files).toMatchObject({ listed: 2, skipped: 1 });
      // The one data file the statistics keep and its delete file: each checked once, before DuckDB read them.
      expect(byteChecks).toHaveBeenCalledTimes(2);
      expect(reads).toHaveBeenCalledTimes(1);
      expect(events).toHaveLength(4);
      expect(events.indexOf('positions start'), `one check waited for the other: ${events.join(', ')}`).toBeLessThan(events.indexOf('field ids end'));
      // The delete check, DuckDB's work on its own threads, is started before the field-id check reads footers on this one.
      expect(events.indexOf('positions start'), events.join(', ')).toBeLessThan(events.indexOf('field ids start'));

      byteChecks.mockClear();
      reads.mockClear();
      events.length = 0;
      const again = await c.sql('SELECT count(*)::INT AS n FROM t WHERE id BETWEEN 400 AND 500');
      expect(again.rows).toEqual([{ n: 100 }]);
      expect(byteChecks).not.toHaveBeenCalled();
      expect(reads).not.toHaveBeenCalled();
      expect(events.filter((e) => e.endsWith('start'))).toEqual(['positions start', 'field ids start']); // asked, and answered from memory
    } finally {
      await c.close();
      vi.restoreAllMocks();
    }
  });

  it("a SELECT runs beside the check of its delete files' positions and answers once it passed: one that does not fit is CORRUPT, whole and streamed, though the query ended first", { timeout: 60_000 }, async () => {
    const lake = await tempDir();
    const setup = await Catalog.open({ dir: lake });
    await setup.sql('CREATE TABLE t (id BIGINT)');
    await setup.sql('INSERT INTO t VALUES (1), (2), (3), (4)');
    const r = await setup.reader();
    const [f] = await r.dataFiles('main', 't');
    await r.close();
    // Registered before the store held it, so first checked when a statement reads it.
    const late = await deleteFileBytes(f!.path, [999, 1000]);
    await setup.transaction((tx) => tx.addDeleteFile('main', 't', { dataFileId: f!.id, path: 'late.parquet', deleteCount: 2, fileSizeBytes: late.length }));
    await new DirectoryStore(path.join(lake, 'store')).putIfAbsent(`${setup.dataPath}late.parquet`, late);
    await setup.close();

    const QUERY = 'SELECT count(*) AS answered FROM t';
    for (const streamed of [false, true]) {
      const events: string[] = [];
      let queryEnded!: () => void;
      const ended = new Promise<void>((resolve) => (queryEnded = resolve));
      const run = DuckDBConnection.prototype.runAndReadAll;
      const stream = DuckDBConnection.prototype.stream;
      const watchQuery = <T>(sql: string, p: Promise<T>) => {
        if (!sql.includes('answered')) return p;
        events.push('query start');
        return p.finally(() => {
          events.push('query end');
          queryEnded();
        });
      };
      vi.spyOn(DuckDBConnection.prototype, 'runAndReadAll').mockImplementation(function (this: DuckDBConnection, sql: string, ...a: unknown[]) {
        return watchQuery(sql, (run as (...x: unknown[]) => ReturnType<typeof run>).call(this, sql, ...a));
      } as never);
      vi.spyOn(DuckDBConnection.prototype, 'stream').mockImplementation(function (this: DuckDBConnection, sql: string, ...a: unknown[]) {
        return watchQuery(sql, (stream as (...x: unknown[]) => ReturnType<typeof stream>).call(this, sql, ...a));
      } as never);
      // The check's verdict is held back until the query has run (or 3 s, should the query wait for the check).
      const trusted = DeletePositionChecks.prototype.trusted;
      vi.spyOn(DeletePositionChecks.prototype, 'trusted').mockImplementation(async function (this: DeletePositionChecks, ...a: Parameters<typeof trusted>) {
        const verdict = trusted.apply(this, a);
        await verdict.catch(() => undefined);
        await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 3000))]);
        events.push('check end');
        return verdict;
      });
      const c = await Catalog.open({ dir: lake }); // afresh: no file checked yet
      try {
        const answer = streamed ? (async () => { for await (const batch of c.sqlBatches(QUERY)) return batch.rows; })() : c.sql(QUERY).then((x) => x.rows);
        const e = await answer.catch((x: unknown) => x);
        expect(isStrataError(e, 'CORRUPT'), `${streamed ? 'streamed' : 'whole'}: ${String(e)}`).toBe(true);
        expect((e as Error).message).toMatch(/late\.parquet.*past the 4 rows/);
        expect(events, streamed ? 'streamed' : 'whole').toEqual(['query start', 'query end', 'check end']);
      } finally {
        await c.close();
        vi.restoreAllMocks();
      }
    }
  });
});
