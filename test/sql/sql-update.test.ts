// UPDATE through catalog.sql, and the seed scenario written in SQL alone: a changed row is deleted where it
// was and written anew carrying its old row id (DuckLake's _ducklake_internal_row_id), so the row keeps its
// identity; the deltas between a tag and now are plain SQL; concurrent writers, in one process or several,
// see every acknowledged statement's effect once and a CONFLICT leave nothing behind.
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Catalog, isStrataError } from '../../src/index.js';
import { openCatalog, runTsx, tempDir } from '../helpers.js';
import { rowIds } from '../support/row-ids.js';
import { runCli } from '../support/run-cli.js';
import { expectPointedAt } from '../support/pointed.js';

const rows = async (c: Catalog, sql: string) => (await c.sql(sql)).rows;

describe('UPDATE through catalog.sql', () => {
  it('the seed scenario in SQL alone: CREATE, INSERT, UPDATE a city, tag, UPDATE to NULL, INSERT, DELETE; the deltas; row ids kept', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.sql('CREATE SCHEMA IF NOT EXISTS main');
    await c.sql('CREATE TABLE customers (id BIGINT NOT NULL, name VARCHAR, city VARCHAR)');
    await c.sql(`INSERT INTO customers VALUES (1, 'Ada', 'London'), (2, 'Grace', 'Arlington'), (3, 'Edsger', 'Nuenen'), (4, 'Barbara', 'Boston')`);
    const ids = await rowIds(c, dir, 'customers');
    expect((await c.sql(`UPDATE customers SET city = 'New York' WHERE name = 'Grace'`)).rows).toEqual([{ Count: 1n }]);
    const decided = (await c.snapshots()).at(-1)!.id;
    await c.createTag('decision', decided);
    await c.sql(`UPDATE customers SET city = NULL WHERE id = 3`);
    await c.sql(`INSERT INTO customers VALUES (5, 'Frances', 'Dayton')`);
    await c.sql('DELETE FROM customers WHERE id = 4');
    // Every row that stayed kept its id, through one update or two.
    const after = await rowIds(c, dir, 'customers');
    for (const id of [1n, 2n, 3n]) expect(after.get(id), `row ${id}`).toBe(ids.get(id));
    expect(after.has(4n)).toBe(false);
    expect([...after.values()].filter((v) => [...ids.values()].includes(v))).toHaveLength(3); // the new row's id is new

    expect(await rows(c, `SELECT id, city FROM customers AT (VERSION => 'decision') ORDER BY id`)).toEqual([
      { id: 1n, city: 'London' },
      { id: 2n, city: 'New York' },
      { id: 3n, city: 'Nuenen' },
      { id: 4n, city: 'Boston' },
    ]);
    // The delta as anti joins both ways, and as a full join on what changed (a NULL city is a change).
    expect(await rows(c, `SELECT id FROM customers ANTI JOIN customers AS d AT (VERSION => 'decision') USING (id, name) ORDER BY id`)).toEqual([{ id: 5n }]);
    expect(await rows(c, `SELECT d.id FROM customers AS d AT (VERSION => 'decision') ANTI JOIN customers USING (id) ORDER BY d.id`)).toEqual([{ id: 4n }]);
    expect(
      await rows(
        c,
        `SELECT coalesce(now.id, was.id) AS id, was.city AS was, now.city AS now FROM customers AS now FULL JOIN customers AS was AT (VERSION => 'decision') USING (id)
         WHERE now.city IS DISTINCT FROM was.city ORDER BY 1`,
      ),
    ).toEqual([
      { id: 3n, was: 'Nuenen', now: null },
      { id: 4n, was: 'Boston', now: null },
      { id: 5n, was: null, now: 'Dayton' },
    ]);
    // Row by row, as DuckLake's table_changes: one update (preimage and postimage under one rowid), one insert, one delete.
    const now = (await c.snapshots()).at(-1)!.id;
    const changes = await c.tableChanges('main', 'customers', { from: decided + 1, to: now });
    expect(changes.columns.map((x) => x.name)).toEqual(['snapshot_id', 'rowid', 'change_type', 'id', 'name', 'city']);
    expect(changes.rows).toEqual([
      { snapshot_id: BigInt(decided + 1), rowid: ids.get(3n), change_type: 'update_preimage', id: 3n, name: 'Edsger', city: 'Nuenen' },
      { snapshot_id: BigInt(decided + 1), rowid: ids.get(3n), change_type: 'update_postimage', id: 3n, name: 'Edsger', city: null },
      { snapshot_id: BigInt(decided + 2), rowid: after.get(5n), change_type: 'insert', id: 5n, name: 'Frances', city: 'Dayton' },
      { snapshot_id: BigInt(decided + 3), rowid: ids.get(4n), change_type: 'delete', id: 4n, name: 'Barbara', city: 'Boston' },
    ]);
    // Bounds by tag and inclusive: the tag's own snapshot holds Grace's move.
    const fromTag = await c.tableChanges('main', 'customers', { from: { tag: 'decision' }, to: { tag: 'decision' } });
    expect(fromTag.rows.map((r) => [r.change_type, r.city])).toEqual([['update_preimage', 'Arlington'], ['update_postimage', 'New York']]);
    const streamed: unknown[] = [];
    for await (const b of c.tableChangesBatches('main', 'customers', { from: 0, to: now })) streamed.push(...b.rows);
    expect(streamed.length).toBe(4 + 2 + 4); // four inserts, then the two updates' pairs and the insert and delete above
    // A compaction then: nothing over it row by row, and every row keeps its id.
    const idsBeforeCompaction = await rowIds(c, dir, 'customers');
    const compacted = await c.compact('main', 'customers');
    expect(compacted.snapshot).not.toBeNull();
    expect((await c.tableChanges('main', 'customers', { from: compacted.snapshot!, to: compacted.snapshot! })).rows).toEqual([]);
    expect(await rowIds(c, dir, 'customers')).toEqual(idsBeforeCompaction);
    expect((await c.tableChanges('main', 'customers', { from: decided + 1, to: compacted.snapshot! })).rows).toEqual(changes.rows);
    // Setting a row to what it was changes nothing and commits nothing; NOT NULL holds; the past is as it was.
    const at = (await c.snapshots()).at(-1)!.id;
    await c.sql('UPDATE customers SET city = city');
    expect((await c.snapshots()).at(-1)!.id).toBe(at);
    const refused = await c.sql('UPDATE customers SET id = NULL WHERE id = 1').catch((e: unknown) => e);
    expect(isStrataError(refused, 'INVALID_ARGUMENT'), String(refused)).toBe(true);
    expect((await c.snapshots()).at(-1)!.id).toBe(at);
    expect((await c.verify({ files: true })).violations).toEqual([]);
    // The command line: the same changes, bounds as a tag and an id.
    await c.close();
    const cli = await runCli('changes', 'main.customers', 'decision', String(now), '--json', '--dir', dir);
    expect(cli.code, cli.stderr).toBe(0);
    expect((JSON.parse(cli.stdout) as { change_type: string }[]).map((r) => r.change_type)).toEqual([
      'update_preimage', 'update_postimage', 'update_preimage', 'update_postimage', 'insert', 'delete',
    ]);
  });

  it('two processes running UPDATEs and INSERTs into one table: every acknowledged statement once, a CONFLICT writes nothing', { timeout: 120_000 }, async () => {
    const root = await tempDir();
    const store = { path: path.join(root, 'store') };
    const setup = await openCatalog({ dir: path.join(root, 'setup'), store });
    await setup.sql('CREATE TABLE t (id BIGINT, n BIGINT)');
    await setup.sql('INSERT INTO t VALUES (0, 0)');
    await setup.close();
    const child = new URL('../fixtures/sql-writer-child.ts', import.meta.url);
    const outs = await Promise.all([1, 2].map(async (w) => (await runTsx(child, [path.join(root, `w${w}`), JSON.stringify(store), '12', `w${w}`, String(w)])).stdout.trim().split('\n')));
    const lines = outs.flat();
    expect(lines.every((l) => /^(ok|conflict) /.test(l)) && lines.length === 24, lines.join('\n')).toBe(true);
    console.info(`two SQL writers: ${lines.filter((l) => l.startsWith('conflict')).length} of 24 statements were CONFLICT`);
    const inserted = lines.filter((l) => l.startsWith('ok insert')).map((l) => BigInt(l.split(' ')[2]!));
    const updates = lines.filter((l) => l.startsWith('ok update')).map((l) => BigInt(l.split(' ')[3]!));
    const fresh = await openCatalog({ dir: path.join(root, 'check'), store, readOnly: true });
    const got = new Map(((await fresh.sql('SELECT id, n FROM t')).rows as { id: bigint; n: bigint }[]).map((r) => [r.id, r.n]));
    // Each insert once; the shared row counts exactly the acknowledged updates; each own row its one update.
    expect(got.size).toBe(1 + inserted.length);
    for (const id of inserted) expect(got.has(id), String(id)).toBe(true);
    expect(got.get(0n)).toBe(BigInt(updates.length));
    for (const id of inserted) expect(got.get(id), String(id)).toBe(BigInt(updates.filter((u) => u === id).length));
    expect(updates.length).toBeGreaterThan(0);
    expect((await fresh.verify()).violations).toEqual([]);
  });

  it('a bind error in the WHERE of an UPDATE points into the statement as written', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.sql('CREATE TABLE orders (order_id BIGINT, amount DOUBLE, note VARCHAR)');
    await c.sql(`INSERT INTO orders VALUES (1, 2.5, 'a')`);
    const statement = `UPDATE orders SET note = 'paid' WHERE amout > 1`;
    await expectPointedAt(c.sql(statement), statement, 'amout', dir);
    expect((await c.sql('SELECT note FROM orders')).rows).toEqual([{ note: 'a' }]);
  });
});
