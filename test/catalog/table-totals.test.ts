// A table's size at a snapshot (Reader.tableTotals): at the newest snapshot from the table's stats row, which
// every commit keeps, else by listing. Held at every snapshot of a history that moves delete files every way a
// commit can (a delete file replaced, one ended with its data file, one never visible, compaction, a restore,
// a drop and a catalog restore) to the rows DuckDB counts and to the files the listing names; verify holds
// the stats row to the files after each commit.
import { describe, expect, it } from 'vitest';
import type { Catalog, TableTotals } from '../../src/index.js';
import { openCatalog, tempDir } from '../helpers.js';

/** The totals as the listing and DuckDB give them: an answer computed apart from the stats row. */
async function listed(c: Catalog, snapshot: number): Promise<TableTotals> {
  const r = await c.reader({ snapshot });
  try {
    const data = await r.dataFiles('main', 't');
    const deletes = await r.deleteFiles('main', 't');
    const [{ n }] = (await c.sql('SELECT count(*)::INTEGER AS n FROM t', { at: { snapshot } })).rows as [{ n: number }];
    return {
      dataFiles: data.length,
      dataBytes: data.reduce((a, f) => a + f.fileSizeBytes, 0),
      deleteFiles: deletes.length,
      deleteBytes: deletes.reduce((a, d) => a + d.fileSizeBytes, 0),
      rows: n,
    };
  } finally {
    await r.close();
  }
}

async function totals(c: Catalog, snapshot?: number): Promise<TableTotals> {
  const r = await c.reader(snapshot === undefined ? {} : { snapshot });
  try {
    return await r.tableTotals('main', 't');
  } finally {
    await r.close();
  }
}

describe('tableTotals', () => {
  it('answers what the files and DuckDB say, at the newest snapshot and every older one, whatever moved the delete files', async () => {
    const c = await openCatalog({ dir: await tempDir() });
    const steps: [string, () => Promise<unknown>][] = [
      ['create', () => c.sql('CREATE TABLE t (id BIGINT, v VARCHAR)')],
      ['insert a', () => c.sql(`INSERT INTO t SELECT i, 'a' FROM range(0, 100) r(i)`)],
      ['insert b', () => c.sql(`INSERT INTO t SELECT i, 'b' FROM range(100, 150) r(i)`)],
      ['delete some', () => c.sql('DELETE FROM t WHERE id % 10 = 3')],
      ['delete more (replaces the delete files)', () => c.sql('DELETE FROM t WHERE id % 10 = 4')],
      ['update', () => c.sql(`UPDATE t SET v = 'u' WHERE id % 10 = 5`)],
      ['delete all of b (its data file ends, with its delete file)', () => c.sql('DELETE FROM t WHERE id >= 100 AND id < 150')],
      ['compact', () => c.compact('main', 't')],
      ['delete after compaction', () => c.sql('DELETE FROM t WHERE id < 10')],
      ['restore to before the compaction', () => c.restoreTable('main', 't', 7)],
      ['drop', () => c.sql('DROP TABLE t')],
      ['catalog restored to before the drop', () => c.restoreCatalog(10)],
      ['delete after the restore', () => c.sql('DELETE FROM t WHERE id = 20')],
    ];
    const seen: number[] = [];
    for (const [what, step] of steps) {
      await step();
      const head = (await c.snapshots()).at(-1)!.id;
      expect((await c.verify()).violations, what).toEqual([]);
      if (what === 'drop') continue;
      seen.push(head);
      expect(await totals(c), what).toEqual(await listed(c, head));
    }
    // Older snapshots are listed, not read from the stats, which say only what the newest holds.
    for (const s of seen) expect(await totals(c, s), `snapshot ${s}`).toEqual(await listed(c, s));
    const newest = await totals(c);
    expect(newest.deleteFiles).toBeGreaterThan(0);
    expect(newest.rows).toBeLessThan(100);
    await c.close();
  });
});

describe('totals', () => {
  it('counts the live schemas, tables and views and adds up every live table, at the newest snapshot and every older one', async () => {
    const c = await openCatalog({ dir: await tempDir() });
    // The model: what the steps below leave live, kept here, and each such table listed (its rows counted by
    // DuckDB) on its own and summed.
    type Live = { schemas: string[]; tables: string[]; views: number };
    const model = async (snapshot: number, live: Live) => {
      const r = await c.reader({ snapshot });
      const sum = { schemas: live.schemas.length, tables: live.tables.length, views: live.views, dataFiles: 0, dataBytes: 0, deleteFiles: 0, deleteBytes: 0, rows: 0 };
      try {
        for (const qualified of live.tables) {
          const [schema, table] = qualified.split('.') as [string, string];
          const data = await r.dataFiles(schema, table);
          const deletes = await r.deleteFiles(schema, table);
          const [{ n }] = (await c.sql(`SELECT count(*)::INTEGER AS n FROM ${qualified}`, { at: { snapshot } })).rows as [{ n: number }];
          sum.dataFiles += data.length;
          sum.dataBytes += data.reduce((a, f) => a + f.fileSizeBytes, 0);
          sum.deleteFiles += deletes.length;
          sum.deleteBytes += deletes.reduce((a, d) => a + d.fileSizeBytes, 0);
          sum.rows += n;
        }
      } finally {
        await r.close();
      }
      return sum;
    };
    let live: Live = { schemas: ['main'], tables: [], views: 0 };
    const steps: [string, (l: Live) => Live][] = [
      ['CREATE SCHEMA s', (l) => ({ ...l, schemas: [...l.schemas, 's'] })],
      ['CREATE TABLE a (id BIGINT)', (l) => ({ ...l, tables: [...l.tables, 'main.a'] })],
      ['CREATE TABLE s.b (id BIGINT, v VARCHAR)', (l) => ({ ...l, tables: [...l.tables, 's.b'] })],
      ['INSERT INTO a SELECT i FROM range(0, 40) r(i)', (l) => l],
      [`INSERT INTO s.b SELECT i, 'x' FROM range(0, 70) r(i)`, (l) => l],
      ['CREATE VIEW s.w AS SELECT * FROM s.b', (l) => ({ ...l, views: l.views + 1 })],
      ['DELETE FROM s.b WHERE id % 7 = 1', (l) => l],
      ['INSERT INTO a SELECT i FROM range(40, 45) r(i)', (l) => l],
      ['CREATE TABLE s.gone (id BIGINT)', (l) => ({ ...l, tables: [...l.tables, 's.gone'] })],
      ['INSERT INTO s.gone SELECT i FROM range(0, 9) r(i)', (l) => l],
      // A dropped table keeps its stats row: it must not be counted.
      ['DROP TABLE s.gone', (l) => ({ ...l, tables: l.tables.filter((t) => t !== 's.gone') })],
      ['DELETE FROM a WHERE id < 3', (l) => l],
      ['DROP VIEW s.w', (l) => ({ ...l, views: l.views - 1 })],
      // Nor does a table of a dropped schema count, nor the schema.
      ['CREATE SCHEMA d', (l) => ({ ...l, schemas: [...l.schemas, 'd'] })],
      ['CREATE TABLE d.x (id BIGINT)', (l) => ({ ...l, tables: [...l.tables, 'd.x'] })],
      ['INSERT INTO d.x SELECT i FROM range(0, 11) r(i)', (l) => l],
      ['DROP SCHEMA d CASCADE', (l) => ({ ...l, schemas: l.schemas.filter((x) => x !== 'd'), tables: l.tables.filter((t) => !t.startsWith('d.')) })],
    ];
    const seen: [number, Live][] = [];
    for (const [statement, effect] of steps) {
      await c.sql(statement);
      live = effect(live);
      const head = (await c.snapshots()).at(-1)!.id;
      seen.push([head, live]);
      const r = await c.reader();
      try {
        expect(await r.totals(), statement).toEqual(await model(head, live));
      } finally {
        await r.close();
      }
    }
    for (const [s, l] of seen) {
      const r = await c.reader({ snapshot: s });
      try {
        expect(await r.totals(), `snapshot ${s}`).toEqual(await model(s, l));
      } finally {
        await r.close();
      }
    }
    await c.close();
  });
});
