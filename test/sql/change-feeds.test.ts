// DuckLake's change feeds in SQL — table_changes('s.t', from, to), table_insertions, table_deletions — read in a
// statement and joined like any table: the same rows as the API's tableChanges over the same range (exact
// values: decimals, lists, NULLs), bounds as ids or times (an expression evaluated once), none past the
// statement's snapshot, inside a transaction the committed history.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { expectCode, openCatalog } from '../helpers.js';

const plain = (rows: readonly Record<string, unknown>[]) => JSON.parse(JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as unknown;

describe('change feeds in SQL', () => {
  let c: Catalog;
  const snaps: Record<string, number> = {};
  beforeEach(async () => {
    c = await openCatalog();
    const at = async (name: string) => (snaps[name] = (await c.snapshots()).at(-1)!.id);
    await c.sql('CREATE SCHEMA s');
    await c.sql('CREATE TABLE s.t (id BIGINT NOT NULL, amount DECIMAL(12,3), tags VARCHAR[])');
    await at('created');
    await c.sql(`INSERT INTO s.t VALUES (1, 1.125, ['a']), (2, NULL, []), (3, 99999.999, NULL)`);
    await at('inserted');
    await c.sql('UPDATE s.t SET amount = 2.5 WHERE id = 1');
    await at('updated');
    await c.sql('DELETE FROM s.t WHERE id = 3');
    await at('deleted');
    await c.sql(`INSERT INTO s.t VALUES (4, 0.001, ['x', NULL])`);
    await at('again');
  });
  afterEach(() => {
    for (const k of Object.keys(snaps)) delete snaps[k];
  });

  it("table_changes() gives tableChanges' rows over the same range, values exact; its kin the rows given and taken", async () => {
    const api = await c.tableChanges('s', 't', { from: snaps.inserted!, to: snaps.again! });
    const sql = await c.sql(`SELECT * FROM table_changes('s.t', ${snaps.inserted}, ${snaps.again})`);
    expect(sql.columns).toEqual(api.columns);
    expect(plain(sql.rows)).toEqual(plain(api.rows));
    expect(api.rows.map((r) => r.change_type)).toEqual(['insert', 'insert', 'insert', 'update_preimage', 'update_postimage', 'delete', 'insert']);
    // As DuckLake's: the rows given (inserts, updates' new values) and taken (deletes, updates' old values), in
    // the table's columns alone, as table_changes has them.
    const feed = async (fn: string) => {
      const r = await c.sql(`SELECT * FROM ${fn}('s.t', ${snaps.inserted}, ${snaps.again}) ORDER BY id, amount`);
      return { columns: r.columns.map((col) => col.name), rows: plain(r.rows) };
    };
    const kinds = async (types: string) =>
      plain((await c.sql(`SELECT * EXCLUDE (snapshot_id, rowid, change_type) FROM table_changes('s.t', ${snaps.inserted}, ${snaps.again}) WHERE change_type IN (${types}) ORDER BY id, amount`)).rows);
    expect(await feed('table_insertions')).toEqual({ columns: ['id', 'amount', 'tags'], rows: await kinds("'insert', 'update_postimage'") });
    expect(await feed('table_deletions')).toEqual({ columns: ['id', 'amount', 'tags'], rows: await kinds("'delete', 'update_preimage'") });
    expect(((await feed('table_insertions')).rows as unknown[]).length).toBe(5);
    expect(plain((await c.sql(`SELECT id, amount FROM table_deletions('s.t', ${snaps.inserted}, ${snaps.again}) ORDER BY id`)).rows)).toEqual([
      { id: '1', amount: '1.125' },
      { id: '3', amount: '99999.999' },
    ]);
    // Streamed in batches, the same rows.
    const streamed: Record<string, unknown>[] = [];
    for await (const b of c.sqlBatches(`SELECT * FROM table_changes('s.t', ${snaps.inserted}, ${snaps.again})`)) streamed.push(...b.rows);
    expect(plain(streamed)).toEqual(plain(api.rows));
    // A table in schema main is named alone.
    await c.sql('CREATE TABLE m (a INTEGER)');
    await c.sql('INSERT INTO m VALUES (7)');
    const head = (await c.snapshots()).at(-1)!.id;
    expect(plain((await c.sql(`SELECT change_type, a FROM table_changes('m', ${head}, ${head})`)).rows)).toEqual([{ change_type: 'insert', a: 7 }]);
  });

  it('joins the snapshots that made the changes; bounds as times, an expression evaluated once', async () => {
    const joined = await c.sql(`SELECT c.snapshot_id, c.change_type, s.commit_message FROM table_changes('s.t', ${snaps.updated}, ${snaps.deleted}) c JOIN snapshots() s USING (snapshot_id) ORDER BY 1, 2`);
    expect(plain(joined.rows)).toEqual([
      { snapshot_id: String(snaps.updated), change_type: 'update_postimage', commit_message: 'UPDATE s.t' },
      { snapshot_id: String(snaps.updated), change_type: 'update_preimage', commit_message: 'UPDATE s.t' },
      { snapshot_id: String(snaps.deleted), change_type: 'delete', commit_message: 'DELETE FROM s.t' },
    ]);
    const history = await c.snapshots();
    const time = (id: number) => history.find((s) => s.id === id)!.time.toISOString();
    const byTime = await c.sql(`SELECT count(*) AS n FROM table_changes('s.t', '${time(snaps.updated!)}', TIMESTAMP '${time(snaps.deleted!).replace('T', ' ').replace('Z', '')}')`);
    expect(byTime.rows).toEqual([{ n: 3n }]);
    // Everything up to now; a time before the catalog's first snapshot names none, as a reader's would.
    expect((await c.sql(`SELECT count(*) AS n FROM table_changes('s.t', 1, now())`)).rows).toEqual([{ n: 7n }]);
    await expectCode(c.sql(`SELECT count(*) AS n FROM table_changes('s.t', now() - INTERVAL 1 HOUR, now())`), 'BEFORE_FIRST_SNAPSHOT', /the first is snapshot 0/);
  });

  it("reads no change past the statement's snapshot; inside a transaction, the committed history", async () => {
    await expectCode(c.sql(`SELECT * FROM table_changes('s.t', 1, ${snaps.again})`, { at: { snapshot: snaps.updated! } }), 'INVALID_ARGUMENT', new RegExp(`ends at snapshot ${snaps.again}, after the statement's snapshot ${snaps.updated}`));
    expect((await c.sql(`SELECT count(*) AS n FROM table_changes('s.t', 1, ${snaps.updated})`, { at: { snapshot: snaps.updated! } })).rows).toEqual([{ n: 5n }]);
    await c.transaction(async (tx) => {
      await tx.sql('INSERT INTO s.t VALUES (5, 5, NULL)');
      const head = (await c.snapshots()).at(-1)!.id;
      expect((await tx.sql(`SELECT count(*) AS n FROM table_changes('s.t', 1, ${head})`)).rows).toEqual([{ n: 7n }]);
    });
  });

  it('bounds as parameters: the changes since the snapshot a consumer last saw, as a number, a bigint, a Date, a time string, named or positional', async () => {
    const since = async (from: number, params?: unknown) => (await c.sql(`SELECT change_type, id FROM table_changes('s.t', ${params === undefined ? `${from}, ${snaps.again}` : '$1, $2'}) ORDER BY snapshot_id, rowid, change_type`, params === undefined ? undefined : { params: params as never })).rows;
    const written = await since(snaps.updated!);
    expect(written.length).toBe(4);
    expect(await since(0, [snaps.updated!, snaps.again!])).toEqual(written);
    expect(await since(0, [BigInt(snaps.updated!), snaps.again!])).toEqual(written);
    const history = await c.snapshots();
    const time = (id: number) => history.find((h) => h.id === id)!.time;
    expect(await since(0, [time(snaps.updated!), time(snaps.again!).toISOString()])).toEqual(written);
    // Named; one also read by the statement itself; positional ones numbered after the statement's own.
    const named = await c.sql(`SELECT id FROM table_changes('s.t', $from, $to) WHERE id >= $from ORDER BY ALL`, { params: { from: 2, to: snaps.again! } });
    expect(named.rows).toEqual((await c.sql(`SELECT id FROM table_changes('s.t', 2, ${snaps.again}) WHERE id >= 2 ORDER BY ALL`)).rows);
    const after = await c.sql(`SELECT change_type FROM table_changes('s.t', $2, $3) WHERE id = $1`, { params: [3, snaps.inserted!, snaps.again!] });
    expect(after.rows.map((r) => r.change_type).sort()).toEqual(['delete', 'insert']);
    // In a statement that writes, as in a SELECT.
    await c.sql(`CREATE TABLE s.feed AS SELECT * FROM table_changes('s.t', $1, $2)`, { params: [snaps.updated!, snaps.again!] });
    expect((await c.sql('SELECT count(*) AS n FROM s.feed')).rows).toEqual([{ n: 4n }]);
    await expectCode(c.sql(`SELECT * FROM table_changes('s.t', $1, $2)`, { params: [snaps.updated!] }), 'INVALID_ARGUMENT', /last bound is \$2, and sql\(\) params gives it no value/);
    await expectCode(c.sql(`SELECT * FROM table_changes('s.t', $1, $2)`, { params: [1.5, 2] }), 'INVALID_ARGUMENT', /first bound \(\$1\) "1\.5" is not a snapshot id/);
    await expectCode(c.sql(`SELECT * FROM table_changes('s.t', $1, $2)`, { params: [null, 2] }), 'INVALID_ARGUMENT', /takes a snapshot id .* or a time .*; got null/);
    await expectCode(c.sql(`SELECT * FROM table_changes('s.t', $1, $2) WHERE id > $3`, { params: [1, 2, 0] }), 'INVALID_ARGUMENT', /number the bounds after them/);
    await expectCode(c.sql(`SELECT * FROM table_changes('s.t', $1::TIMESTAMP - INTERVAL 1 HOUR, 2)`, { params: ['2026-01-01'] }), 'INVALID_ARGUMENT', /takes a parameter alone/);
  });

  it('refused, saying how it is called: no arguments, a table that is not a string, a bound that reads a column, a table the lake lacks', async () => {
    await expectCode(c.sql('SELECT * FROM table_changes()'), 'INVALID_ARGUMENT', /table_changes\('schema\.table', from, to\) takes the table as a string/);
    await expectCode(c.sql('SELECT * FROM table_changes(1, 2, 3)'), 'INVALID_ARGUMENT', /got 3 arguments, the first .*\(1\)/);
    await expectCode(c.sql("SELECT * FROM table_changes('s.t', 1, id)"), 'INVALID_ARGUMENT', /last bound .* cannot read a column \(id\)/);
    await expectCode(c.sql("SELECT * FROM table_changes('s.t', 1, true)"), 'INVALID_ARGUMENT', /first bound|last bound/);
    await expectCode(c.sql("SELECT * FROM table_changes('s.nope', 1, 2)"), 'NOT_FOUND', /nope/);
    await expectCode(c.sql(`SELECT * FROM table_changes('s.t', ${snaps.deleted}, ${snaps.updated})`), 'INVALID_ARGUMENT', /swap them/);
  });
});
