// What an AT clause's refusal says, word for word: the table it is on (its schema, or main), what the value
// was (a decimal, a cast, NULL, a column, a function, a literal of another type) and what to write instead.
// sql-read.test.ts checks which values are refused; this file checks that each refusal tells a person why,
// and that TIMESTAMP, TIMESTAMPTZ and DATE literals are read as the instants they are.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/index.js';
import { openCatalog } from '../helpers.js';

const TAKES_VERSION = "takes an integer literal (a snapshot id, such as VERSION => 3) or a string (a tag name, such as VERSION => 'q1'); got";
const TAKES_TIME = "takes a time as a string or TIMESTAMP '…', such as TIMESTAMP => '2026-03-01T12:00:00Z'; got";

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
      ['TIMESTAMP => now()', `AT (TIMESTAMP => …) on main.t ${TAKES_TIME} an expression (now(…))`],
      ["TIMESTAMP => '2020-01-01'::VARCHAR", `AT (TIMESTAMP => …) on main.t ${TAKES_TIME} a cast to VARCHAR`],
    ]) {
      const out = await c.sql(`SELECT * FROM t AT (${at})`).catch((e: unknown) => e);
      expect(isStrataError(out, 'INVALID_ARGUMENT'), `${at}: ${String(out)}`).toBe(true);
      expect((out as Error).message, at).toBe(message);
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
