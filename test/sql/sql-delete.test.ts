// DELETE through catalog.sql: the rows DuckDB's DELETE removes become positional delete files as DuckLake
// writes them (file_path, pos), each holding every deleted row of its data file; a data file whose rows all
// go is ended; every snapshot counts exactly; a concurrent delete that was not seen is CONFLICT, never lost.
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { type Catalog, isStrataError } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { expectCode, openCatalog, tempDir } from '../helpers.js';
import { deleteFileBytes, putDeleteFile } from '../support/delete-file.js';
import { expectPointedAt } from '../support/pointed.js';

const count = async (c: Catalog, sql: string) => Number((await c.sql(sql)).rows[0]!.n);
const head = async (c: Catalog) => (await c.snapshots()).at(-1)!.id;

describe('DELETE through catalog.sql', () => {
  it('WHERE, a subquery and USING over other tables, RETURNING; a data file emptied is ended; the past unchanged', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id BIGINT, v VARCHAR)');
    await c.sql('CREATE TABLE gone (id BIGINT)');
    await c.sql(`INSERT INTO t SELECT i, 'a' || i FROM range(10) r(i)`);
    await c.sql(`INSERT INTO t SELECT i, 'b' || i FROM range(10, 15) r(i)`);
    await c.sql('INSERT INTO gone VALUES (2), (3)');
    const full = await head(c);
    expect((await c.sql('DELETE FROM t WHERE id % 5 = 0')).rows).toEqual([{ Count: 3n }]);
    expect((await c.sql('DELETE FROM t WHERE id IN (SELECT id FROM gone)')).rows).toEqual([{ Count: 2n }]);
    expect((await c.sql('DELETE FROM t USING gone WHERE t.id = gone.id + 5')).rows).toEqual([{ Count: 2n }]);
    expect((await c.sql('DELETE FROM t WHERE id = 4 RETURNING v')).rows).toEqual([{ v: 'a4' }]);
    expect((await c.sql('SELECT list(id ORDER BY id) AS ids FROM t')).rows).toEqual([{ ids: [1n, 6n, 9n, 11n, 12n, 13n, 14n] }]);
    const r = await c.reader();
    const [first] = await r.dataFiles('main', 't');
    const deletes = await r.deleteFiles('main', 't');
    await r.close();
    // One delete file per data file, the newest holding every deleted row of it (7 of the first file's 10).
    expect(deletes.length).toBe(2);
    expect(deletes.find((d) => d.dataFileId === first!.id)!.deleteCount).toBe(7);
    await c.sql('DELETE FROM t WHERE id >= 10');
    const files = await (await c.reader()).dataFiles('main', 't');
    expect(files.map((f) => f.id)).toEqual([first!.id]); // the second file lost every row: ended
    expect(await count(c, 'SELECT count(*) AS n FROM t')).toBe(3);
    expect(await count(c, `SELECT count(*) AS n FROM t AT (VERSION => ${full})`)).toBe(15);
    // Nothing matched: no commit.
    const at = await head(c);
    expect((await c.sql('DELETE FROM t WHERE id > 1000')).rows).toEqual([{ Count: 0n }]);
    expect(await head(c)).toBe(at);
    expect((await c.verify({ files: true })).violations).toEqual([]);
  });

  it('a delete file whose positions do not fit its data file is refused when registered, or, registered before the store held it, when first read: no DELETE builds on it or ends the file', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    const store = new DirectoryStore(path.join(dir, 'store'));
    await c.sql('CREATE TABLE t (id BIGINT)');
    await c.sql('INSERT INTO t VALUES (1), (2), (3), (4)');
    const r = await c.reader();
    const [f] = await r.dataFiles('main', 't');
    await r.close();
    const at = await head(c);
    const cases: [string, number[], number, RegExp][] = [
      ['past.parquet', [999, 1000], 2, /position 1000, past the 4 rows of its data file/],
      ['twice.parquet', [0, 0], 2, /1 positions more than once/],
      ['miscounted.parquet', [0, 1], 1, /holds 2 positions, and its deleteCount says 1/],
      // Four entries for a file of four rows would have ended the file: two of them are one row.
      ['every.parquet', [0, 0, 1, 2], 4, /more than once/],
    ];
    for (const [name, positions, deleteCount, why] of cases) {
      const { fileSizeBytes } = await putDeleteFile(store, `${c.dataPath}${name}`, f!.path, positions);
      const e = await c.transaction((tx) => tx.addDeleteFile('main', 't', { dataFileId: f!.id, path: name, deleteCount, fileSizeBytes })).catch((x: unknown) => x);
      expect(isStrataError(e, 'INVALID_ARGUMENT'), `${name}: ${String(e)}`).toBe(true);
      expect((e as Error).message, name).toMatch(why);
    }
    expect(await head(c)).toBe(at);
    expect(await count(c, 'SELECT count(*) AS n FROM t')).toBe(4);

    // Registered before the engine put it in the store, it is checked when a statement first reads it.
    const late = await deleteFileBytes(f!.path, [999, 1000]);
    await c.transaction((tx) => tx.addDeleteFile('main', 't', { dataFileId: f!.id, path: 'late.parquet', deleteCount: 2, fileSizeBytes: late.length }));
    await store.putIfAbsent(`${c.dataPath}late.parquet`, late);
    const registered = await head(c);
    const read = await c.sql('SELECT count(*) AS n FROM t').catch((x: unknown) => x);
    expect(isStrataError(read, 'CORRUPT'), String(read)).toBe(true);
    expect((read as Error).message).toMatch(/late\.parquet.*past the 4 rows/);
    const changes = await c.tableChanges('main', 't', { from: registered, to: registered }).catch((x: unknown) => x);
    expect(isStrataError(changes, 'CORRUPT'), String(changes)).toBe(true);
    // Two DELETEs of one row each once left the table empty: each built on the bad file, counting its entries.
    for (const k of [1, 2]) {
      const e = await c.sql(`DELETE FROM t WHERE id = ${k}`).catch((x: unknown) => x);
      expect(isStrataError(e, 'CORRUPT'), String(e)).toBe(true);
    }
    expect(await head(c)).toBe(registered);
    expect(await count(c, `SELECT count(*) AS n FROM t AT (VERSION => ${at})`)).toBe(4);
  });

  it('a 1M-row table and 10 DELETEs: count(*) exact at every snapshot, each delete file holds every earlier position of its data file', { timeout: 120_000 }, async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.sql('CREATE TABLE big (id BIGINT, k INTEGER)');
    for (let part = 0; part < 4; part++) await c.sql(`INSERT INTO big SELECT i, (i * 7919 % 1000)::INTEGER FROM range(${part * 250_000}, ${(part + 1) * 250_000}) r(i)`);
    const expected: [number, number][] = [[await head(c), 1_000_000]];
    const gone = new Set<number>();
    for (let k = 0; k < 10; k++) {
      // Rows with k in [k*10, k*10 + 3): 3 in 1,000 each time, in every file; and a range of ids in one file.
      await c.sql(`DELETE FROM big WHERE (k >= ${k * 10} AND k < ${k * 10 + 3}) OR id BETWEEN ${k * 90_000} AND ${k * 90_000 + 99}`);
      for (let i = 0; i < 1_000_000; i++) if (((i * 7919) % 1000 >= k * 10 && (i * 7919) % 1000 < k * 10 + 3) || (i >= k * 90_000 && i <= k * 90_000 + 99)) gone.add(i);
      expected.push([await head(c), 1_000_000 - gone.size]);
    }
    for (const [snapshot, n] of expected) expect(await count(c, `SELECT count(*) AS n FROM big AT (VERSION => ${snapshot})`), `snapshot ${snapshot}`).toBe(n);

    // Each data file's delete file at every snapshot holds the positions of the one before it.
    const db = await DuckDBInstance.create(':memory:');
    const k = await db.connect();
    try {
      const seen = new Map<number, Set<number>>();
      for (const [snapshot] of expected) {
        const r = await c.reader({ snapshot });
        for (const d of await r.deleteFiles('main', 'big')) {
          const local = path.join(dir, 'store', c.dataPath, d.path);
          const pos = new Set((await k.runAndReadAll(`SELECT pos FROM read_parquet('${local}')`)).getRows().map((row) => Number(row[0])));
          expect(pos.size).toBe(d.deleteCount);
          for (const p of seen.get(d.dataFileId) ?? []) expect(pos.has(p)).toBe(true);
          seen.set(d.dataFileId, pos);
        }
        await r.close();
      }
      expect(seen.size).toBe(4);
    } finally {
      k.closeSync();
      db.closeSync();
    }
  });

  it('concurrent statements: each acknowledged DELETE and INSERT has its effect once; a DELETE that did not see another from its file is CONFLICT', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id BIGINT)');
    await c.sql('INSERT INTO t SELECT i FROM range(100) r(i)');
    const statements = ['DELETE FROM t WHERE id < 10', 'DELETE FROM t WHERE id BETWEEN 90 AND 99', 'INSERT INTO t SELECT i FROM range(100, 120) r(i)', 'DELETE FROM t WHERE id BETWEEN 40 AND 49'];
    const outcomes = await Promise.allSettled(statements.map((s) => c.sql(s)));
    for (const o of outcomes) if (o.status === 'rejected') expect(isStrataError(o.reason, 'CONFLICT'), String(o.reason)).toBe(true);
    const ok = (i: number) => outcomes[i]!.status === 'fulfilled';
    expect(ok(2)).toBe(true); // an insert conflicts with no delete
    const ids = new Set(((await c.sql('SELECT list(id) AS ids FROM t')).rows[0]!.ids as bigint[]).map(Number));
    const expected = new Set<number>();
    for (let i = 0; i < 120; i++) {
      const deleted = (ok(0) && i < 10) || (ok(1) && i >= 90 && i < 100) || (ok(3) && i >= 40 && i <= 49);
      if (!deleted) expected.add(i);
    }
    expect(ids).toEqual(expected);
    // The conflicting ones, run again on the new state, take effect.
    for (const [i, s] of statements.entries()) if (!ok(i)) await c.sql(s);
    expect(await count(c, 'SELECT count(*) AS n FROM t')).toBe(120 - 30);
  });

  it('a WHERE on a sorted column touches only the files it can match: the rest are neither read nor rewritten', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id BIGINT, v INTEGER)');
    for (let f = 0; f < 10; f++) await c.sql(`INSERT INTO t SELECT i, i % 7 FROM range(${f * 100}, ${(f + 1) * 100}) r(i)`);
    const del = await c.sql('DELETE FROM t WHERE id >= 250 AND id < 260 AND v = 3');
    expect([del.rows, del.files]).toMatchObject([[{ Count: 1n }], { listed: 10, skipped: 9 }]);
    const upd = await c.sql('UPDATE t SET v = 100 WHERE id = 777');
    expect([upd.rows, upd.files]).toMatchObject([[{ Count: 1n }], { listed: 10, skipped: 9 }]);
    // A statement that reads its target again (a subquery) reads every file: nothing skipped, and right.
    const self = await c.sql('DELETE FROM t WHERE id > 900 AND v IN (SELECT v FROM t WHERE id < 3)');
    expect(self.files.skipped).toBe(0);
    expect(self.rows).toEqual([{ Count: BigInt([...Array(99).keys()].map((i) => 901 + i).filter((i) => [0, 1, 2].includes(i % 7)).length) }]);
    expect(await count(c, 'SELECT count(*) AS n FROM t WHERE v = 100')).toBe(1);
    expect(await count(c, 'SELECT count(*) AS n FROM t')).toBe(1000 - 1 - Number(self.rows[0]!.Count));
    expect((await c.verify()).violations).toEqual([]);
  });

  it('a DELETE that draws random numbers draws once per row: about half of 10,000 rows go at random() < 0.5', async () => {
    // Its rows are not chosen before it runs (touched-rows.ts): a second draw would leave about a quarter.
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id BIGINT)');
    await c.sql('INSERT INTO t SELECT i FROM range(10000) r(i)');
    const gone = Number((await c.sql('DELETE FROM t WHERE random() < 0.5')).rows[0]!.Count);
    // Binomial(10,000, 0.5): a standard deviation of 50 rows.
    expect(gone).toBeGreaterThan(4_500);
    expect(gone).toBeLessThan(5_500);
    expect(await count(c, 'SELECT count(*) AS n FROM t')).toBe(10_000 - gone);
  });

  it("rowid in a DELETE, UPDATE or MERGE is refused, nothing written: it would be a row's place in the statement's copy, not its id in the lake", async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id BIGINT)');
    await c.sql('INSERT INTO t SELECT i FROM range(10) r(i)');
    await c.sql('DELETE FROM t WHERE id < 5');
    const head = (await c.snapshots()).at(-1)!.id;
    for (const q of ['DELETE FROM t WHERE rowid = 7', 'UPDATE t SET id = rowid WHERE id = 8', 'MERGE INTO t USING (SELECT 9 AS id) s ON t.rowid = s.id WHEN MATCHED THEN DELETE']) {
      await expectCode(c.sql(q), 'INVALID_ARGUMENT', /names rowid, .* not its id in the lake; nothing was written/);
    }
    expect((await c.snapshots()).at(-1)!.id).toBe(head);
    // A column of the table named rowid is its own.
    await c.sql('CREATE TABLE u ("rowid" BIGINT, v INTEGER)');
    await c.sql('INSERT INTO u VALUES (1, 1), (2, 2)');
    expect((await c.sql('DELETE FROM u WHERE rowid = 2')).rows).toEqual([{ Count: 1n }]);
    expect((await c.sql('SELECT v FROM u')).rows).toEqual([{ v: 1 }]);
  });

  it('a bind error in the WHERE of a DELETE points into the statement as written', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.sql('CREATE TABLE orders (order_id BIGINT, amount DOUBLE)');
    await c.sql('INSERT INTO orders VALUES (1, 2.5)');
    const statement = 'DELETE FROM orders WHERE amout > 1';
    await expectPointedAt(c.sql(statement), statement, 'amout', dir);
    expect((await c.sql('SELECT count(*)::INT AS n FROM orders')).rows).toEqual([{ n: 1 }]);
  });
});
