// What an AT clause's refusal says, word for word: the table it is on (its schema, or main), what the value
// was (a decimal, a cast, NULL, a column, a function, a literal of another type) and what to write instead;
// a time may be an expression of constants (now() - INTERVAL …), evaluated when the statement runs.
// sql-read.test.ts checks which values are refused; this file checks that each refusal tells a person why,
// and that TIMESTAMP, TIMESTAMPTZ and DATE literals are read as the instants they are.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/index.js';
import { openCatalog, steppingClock } from '../helpers.js';

const TAKES_VERSION = "takes an integer literal (a snapshot id, such as VERSION => 3) or a string (a tag name, such as VERSION => 'q1'); got";
const TAKES_TIME = "takes a time: a string, TIMESTAMP '…' or an expression such as now() - INTERVAL 5 MINUTE; got";
const CONSTANTS = "takes a time: a string such as '2026-03-01T12:00:00Z' or an expression of constants, evaluated once when the statement runs (now() - INTERVAL 5 MINUTE); it cannot read";

describe('AT clauses', () => {
  it('each refusal names the table, what the value was and what to write', async () => {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      await tx.createSchema('s');
      await tx.createTable('main', 't', [{ name: 'x', type: 'int32' }]);
      await tx.createTable('s', 't', [{ name: 'x', type: 'int32' }]);
    });
    for (const [at, message] of [
      ["VERSION => '3'", "AT (VERSION => …) on main.t: '3' is a string, which names a tag, and no tag reads as a snapshot id; for snapshot 3 write VERSION => 3"],
      ["VERSION => '2026-01-01'", "AT (VERSION => …) on main.t: '2026-01-01' is a string, which names a tag, and no tag reads as a snapshot time; for a time write TIMESTAMP => '2026-01-01'"],
      ['VERSION => 3.0', `AT (VERSION => …) on main.t ${TAKES_VERSION} a DECIMAL literal`],
      ['VERSION => true', `AT (VERSION => …) on main.t ${TAKES_VERSION} a cast to BOOLEAN (true, false)`],
      ['VERSION => 3::BIGINT', `AT (VERSION => …) on main.t ${TAKES_VERSION} a cast to BIGINT`],
      ['VERSION => NULL', `AT (VERSION => …) on main.t ${TAKES_VERSION} NULL`],
      ['VERSION => x', `AT (VERSION => …) on main.t ${TAKES_VERSION} an expression (column_ref)`],
      ['TIMESTAMP => 1700000000000', `AT (TIMESTAMP => …) on main.t ${TAKES_TIME} a BIGINT literal (1700000000000)`],
      ['TIMESTAMP => x', `AT (TIMESTAMP => …) on main.t ${CONSTANTS} a column (x)`],
      ['TIMESTAMP => now() - INTERVAL (x) SECOND', `AT (TIMESTAMP => …) on main.t ${CONSTANTS} a column (x)`],
      ['TIMESTAMP => (SELECT now())', `AT (TIMESTAMP => …) on main.t ${CONSTANTS} a subquery`],
      ['TIMESTAMP => $1', `AT (TIMESTAMP => …) on main.t ${CONSTANTS} a parameter (give the time in the statement, or as sql() at)`],
      ['TIMESTAMP => NULL::TIMESTAMP', `AT (TIMESTAMP => …) on main.t ${TAKES_TIME} a cast to TIMESTAMP`],
      ['TIMESTAMP => nullif(now(), now())', 'AT (TIMESTAMP => …) on main.t: the time "nullif"(now(), now()) is NULL; give a time'],
      ["TIMESTAMP => 'soon'::TIMESTAMP + INTERVAL 1 DAY", /^AT \(TIMESTAMP => …\) on main\.t: its time could not be evaluated: .*soon/],
    ] as [string, string | RegExp][]) {
      const out = await c.sql(`SELECT * FROM t AT (${at})`).catch((e: unknown) => e);
      expect(isStrataError(out, 'INVALID_ARGUMENT'), `${at}: ${String(out)}`).toBe(true);
      if (typeof message === 'string') expect((out as Error).message, at).toBe(message);
      else expect((out as Error).message, at).toMatch(message);
    }
    const qualified = await c.sql('SELECT * FROM s.t AT (version => 2.5)').catch((e: unknown) => e);
    expect((qualified as Error).message).toBe(`AT (VERSION => …) on s.t ${TAKES_VERSION} a DECIMAL literal`);
  });

  it('reads TIMESTAMP, TIMESTAMPTZ and DATE literals as instants, and a lowercase unit as the same unit', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int32' }]));
    for (const at of ["TIMESTAMP '2020-01-01 00:00:00'", "TIMESTAMPTZ '2020-01-01 00:00:00+00'", "DATE '2020-01-01'", "'2020-01-01T00:00:00Z'"]) {
      const out = await c.sql(`SELECT * FROM t AT (timestamp => ${at})`).catch((e: unknown) => e);
      // Read as 2020-01-01, before the catalog's first snapshot: refused for that, not for its form.
      expect((out as Error).message, at).toMatch(/^no snapshot was committed at or before 2020-01-01T00:00:00\.000Z/);
    }
    expect((await c.sql('SELECT * FROM t AT (version => 1)')).snapshot).toBe(1);
    // A literal past 2^31 is a BIGINT to DuckDB: still an id, one this catalog does not have.
    await expect(c.sql('SELECT * FROM t AT (VERSION => 3000000000)')).rejects.toThrow(/^snapshot 3000000000 does not exist/);
  });

  it('a time expression of constants is evaluated when the statement runs, in a view too', async () => {
    const c = await openCatalog({ clock: steppingClock() });
    await c.sql('CREATE TABLE t (x INTEGER)');
    for (let i = 1; i <= 6; i++) await c.sql(`INSERT INTO t VALUES (${i})`);
    const first = (await c.snapshots())[1]!.time;
    const count = async (sql: string, at?: number) => (await c.sql(sql, at === undefined ? {} : { at: { timestamp: at } })).rows[0]!.n;
    // Each second past the first commit against the same instant given to sql() as a number: the same rows.
    for (const seconds of [0, 3, 7, 11]) {
      const expr = `TIMESTAMPTZ '${first.toISOString()}' + INTERVAL ${seconds} SECOND`;
      const expected = await count('SELECT count(*) AS n FROM t', first.getTime() + seconds * 1000);
      expect(await count(`SELECT count(*) AS n FROM t AT (TIMESTAMP => ${expr})`), expr).toBe(expected);
    }
    // now() is after every commit (the clock is in 2026-01-01): the newest; ten years back, before the first.
    expect(await count('SELECT count(*) AS n FROM t AT (TIMESTAMP => now())')).toBe(6n);
    expect(await count("SELECT count(*) AS n FROM t AT (TIMESTAMP => now() - INTERVAL '1 minute'), t AS u AT (TIMESTAMP => now())")).toBe(36n);
    await expect(c.sql('SELECT * FROM t AT (TIMESTAMP => now() - INTERVAL 10 YEAR)')).rejects.toThrow(/^no snapshot was committed at or before 20[12]\d-/);
    // A view's own AT expression, evaluated each time the view is read; the statement's `at` does not move it.
    await c.transaction((tx) => tx.createView('main', 'early', `SELECT count(*) AS n FROM t AT (TIMESTAMP => TIMESTAMPTZ '${first.toISOString()}' + INTERVAL 3 SECOND)`));
    const early = await count('SELECT count(*) AS n FROM t', first.getTime() + 3000);
    expect(await count('SELECT n FROM early')).toBe(early);
    expect(await count('SELECT n FROM early', Date.now())).toBe(early);
  });

  it("reads a TIMESTAMP or DATE in an expression as UTC wall time, as a literal is read, whatever the process's time zone", async () => {
    const child = fileURLToPath(new URL('../fixtures/at-zone-child.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child], { env: { ...process.env, TZ: 'America/New_York' } });
    // 05:30 UTC: the inserts of 01:00 to 05:00 are there.
    expect(JSON.parse(stdout)).toEqual({ zone: 'America/New_York', literal: 5, expression: 5, option: 5, date: 5, instant: 5 });
  }, 60_000);

  it('a view keeps the AT of its own references; a statement reads as of the newest snapshot any reference read', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (x INTEGER)');
    const empty = (await c.snapshots()).at(-1)!.id;
    await c.sql('INSERT INTO t VALUES (1), (2)');
    await c.transaction((tx) => tx.createView('main', 'earlier', `SELECT count(*) AS n FROM t AT (VERSION => ${empty})`));
    const head = (await c.snapshots()).at(-1)!.id;
    expect((await c.sql('SELECT n FROM earlier')).rows).toEqual([{ n: 0n }]);
    const both = await c.sql(`SELECT count(*) AS n FROM t, t AS old AT (VERSION => ${empty})`);
    expect(both.rows).toEqual([{ n: 0n }]);
    expect(both.snapshot).toBe(head);
  });
});
