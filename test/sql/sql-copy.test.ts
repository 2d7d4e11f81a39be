// COPY through catalog.sql: TO a host file (CSV, Parquet, JSON) byte for byte as DuckDB writes the same COPY
// over the same rows in plain tables, FROM a host file as one commit with DuckDB's COPY FROM semantics
// (column list, defaults, NOT NULL, options); only where the caller opted in (hostWrites to write, hostFiles
// to read), never a second
// statement, nothing committed by a failure.
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { expectCode, tempDir } from '../helpers.js';
import { asJson, sideBySide } from '../support/side-by-side.js';

const SETUP = [
  'CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR, amount DECIMAL(10,2) DEFAULT 1.50, tags VARCHAR[], seen TIMESTAMP)',
  `INSERT INTO t VALUES (1, 'ada', 12.50, ['a', 'b'], TIMESTAMP '2026-01-02 03:04:05.123456'), (2, 'o''k, "q"', NULL, [], NULL), (3, NULL, -0.01, NULL, TIMESTAMP '1999-12-31 23:59:59')`,
];

const plain = asJson;

describe('COPY through catalog.sql', () => {
  const sides = sideBySide(SETUP);
  let c: Catalog;
  let k: DuckDBConnection;
  let out: string;
  beforeEach(async () => {
    ({ c, k } = sides);
    out = await tempDir();
  });
  const head = async () => (await c.snapshots()).at(-1)!.id;

  it('TO CSV, JSON and Parquet writes what DuckDB writes for the same COPY over the same rows', async () => {
    for (const [file, options] of [
      ['q.csv', '(HEADER, DELIMITER \';\')'],
      ['q.json', ''],
      ['q.parquet', '(FORMAT parquet)'],
    ] as const) {
      const lake = path.join(out, `lake-${file}`);
      const duck = path.join(out, `duck-${file}`);
      const query = 'SELECT id, name, amount, tags, seen FROM t WHERE id <> 2 OR name IS NOT NULL ORDER BY id';
      const r = await c.sql(`COPY (${query}) TO '${lake}' ${options}`, { hostWrites: [out] });
      expect(r.rows).toEqual([{ Count: 3n }]);
      await k.run(`COPY (${query}) TO '${duck}' ${options}`);
      if (file.endsWith('.parquet')) {
        const read = async (f: string) => plain((await k.runAndReadAll(`SELECT * FROM read_parquet('${f}') ORDER BY id`)).getRowObjectsJson() as Record<string, unknown>[]);
        expect(await read(lake)).toEqual(await read(duck));
        const types = async (f: string) => plain((await k.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${f}'))`)).getRowObjectsJson() as Record<string, unknown>[]);
        expect(await types(lake)).toEqual(await types(duck));
      } else {
        expect(await readFile(lake, 'utf8')).toBe(await readFile(duck, 'utf8'));
      }
    }
    // A table by name, and a column list of it.
    await c.sql(`COPY t (id, name) TO '${path.join(out, 'cols.csv')}' (HEADER)`, { hostWrites: [out] });
    await k.run(`COPY t (id, name) TO '${path.join(out, 'cols-duck.csv')}' (HEADER)`);
    expect(await readFile(path.join(out, 'cols.csv'), 'utf8')).toBe(await readFile(path.join(out, 'cols-duck.csv'), 'utf8'));
  });

  it('TO reads the lake at the statement\'s snapshot: an AT in the query, or sql() at', async () => {
    const before = await head();
    await c.sql('DELETE FROM t WHERE id = 1');
    await c.sql(`COPY (SELECT id FROM t AT (VERSION => ${before}) ORDER BY id) TO '${path.join(out, 'at.csv')}'`, { hostWrites: [out] });
    expect(await readFile(path.join(out, 'at.csv'), 'utf8')).toBe('id\n1\n2\n3\n');
    const r = await c.sql(`COPY t (id) TO '${path.join(out, 'opt.csv')}'`, { hostWrites: [out], at: { snapshot: before } });
    expect(r.snapshot).toBe(before);
    expect((await readFile(path.join(out, 'opt.csv'), 'utf8')).split('\n').filter(Boolean).sort()).toEqual(['1', '2', '3', 'id']);
  });

  it('FROM loads a host file as DuckDB\'s COPY FROM does: a column list, defaults, options; one commit', async () => {
    const csv = path.join(out, 'in.csv');
    await writeFile(csv, 'id|name\n10|x\n11|"y|z"\n');
    const sql = `COPY t (id, name) FROM '${csv}' (HEADER, DELIMITER '|')`;
    const before = await head();
    const r = await c.sql(sql, { hostFiles: [out], message: 'nightly load' });
    expect(r.rows).toEqual([{ Count: 2n }]);
    await k.run(sql);
    expect(await head()).toBe(before + 1);
    expect((await c.snapshots()).at(-1)!.message).toBe('nightly load');
    const all = 'SELECT CAST(COLUMNS(*) AS VARCHAR) FROM t ORDER BY id';
    expect(plain((await c.sql(all)).rows)).toEqual(plain((await k.runAndReadAll(all)).getRowObjectsJS() as Record<string, unknown>[]));
    expect((await c.sql('SELECT amount FROM t WHERE id = 10')).rows).toEqual([{ amount: '1.50' }]);
  });

  it('runs what DuckDB reads the statement as, and nothing else: comments that hide or cut a COPY', async () => {
    const both = { hostFiles: [out], hostWrites: [out] };
    // A -- comment inside the query cuts it where DuckDB does: the first file name is commented out with it.
    const cut = await c.sql(`COPY (SELECT 1 AS x --) TO '${path.join(out, 'a.csv')}'; COPY (SELECT 2 AS y\n) TO '${path.join(out, 'b.csv')}'`, both);
    expect(cut.rows).toEqual([{ Count: 1n }]);
    expect(await readFile(path.join(out, 'b.csv'), 'utf8')).toBe('x\n1\n');
    await expect(readFile(path.join(out, 'a.csv'))).rejects.toThrow(/ENOENT/);
    // A -- comment ends at a carriage return as at a line end: the COPY after it is the statement.
    const cr = await c.sql(`-- the export\rCOPY (SELECT 3 AS z) TO '${path.join(out, 'cr.csv')}'`, both);
    expect(cr.rows).toEqual([{ Count: 1n }]);
    expect(await readFile(path.join(out, 'cr.csv'), 'utf8')).toBe('z\n3\n');
    // Block comments nest, as DuckDB reads them: this statement is the INSERT after them, and no COPY runs.
    const csv = path.join(out, 'in.csv');
    await writeFile(csv, 'id\n77\n');
    const nested = await c.sql(`/* /* */ COPY t (id) FROM '${csv}' (HEADER); COPY (SELECT 42 AS pwned) TO '${path.join(out, 'pwn.csv')}'; SELECT 7 AS n --*/ INSERT INTO t (id) VALUES (5)`, both);
    expect(nested.rows).toEqual([{ Count: 1n }]);
    await expect(readFile(path.join(out, 'pwn.csv'))).rejects.toThrow(/ENOENT/);
    expect((await c.sql('SELECT list(id ORDER BY id) AS ids FROM t')).rows).toEqual([{ ids: [1n, 2n, 3n, 5n] }]);
  });

  it('refused, nothing written or committed: without hostFiles, outside them, a NOT NULL broken, a second statement', async () => {
    const before = await head();
    const file = path.join(out, 'x.csv');
    await expectCode(c.sql(`COPY t TO '${file}'`), 'INVALID_ARGUMENT', /COPY … TO writes the host file .*x\.csv, outside the lake: a caller opts in with hostWrites/);
    // Reading host files is not writing them.
    await expectCode(c.sql(`COPY t TO '${file}'`, { hostFiles: true }), 'INVALID_ARGUMENT', /opts in with hostWrites/);
    await expectCode(c.sql(`COPY t FROM '${file}'`, { hostWrites: true }), 'INVALID_ARGUMENT', /COPY … FROM reads the host file .* opts in with hostFiles/);
    const elsewhere = await tempDir();
    await expectCode(c.sql(`COPY t TO '${path.join(elsewhere, 'y.csv')}'`, { hostWrites: [out] }), 'INVALID_ARGUMENT', /is not under the directories hostWrites allows/);
    await writeFile(file, 'name\nno id\n');
    await expectCode(c.sql(`COPY t (name) FROM '${file}' (HEADER)`, { hostFiles: [out] }), 'INVALID_ARGUMENT', /NOT NULL/);
    await expectCode(c.sql(`COPY t TO '${path.join(out, 'z.csv')}'; DROP TABLE t`, { hostWrites: [out] }), 'INVALID_ARGUMENT', /one statement at a time/);
    await expectCode(c.sql(`COPY (SELECT 1) FROM '${file}'`, { hostFiles: [out] }), 'INVALID_ARGUMENT', /does not parse/);
    await expectCode(c.sql(`COPY nowhere TO '${path.join(out, 'n.csv')}'`, { hostWrites: [out] }), 'NOT_FOUND', /nowhere/);
    expect(await head()).toBe(before);
    expect((await c.sql('SELECT count(*) AS n FROM t')).rows).toEqual([{ n: 3n }]);
    await expect(readFile(path.join(elsewhere, 'y.csv'))).rejects.toThrow(/ENOENT/);
    await expect(readFile(path.join(out, 'z.csv'))).rejects.toThrow(/ENOENT/);
  });
});
