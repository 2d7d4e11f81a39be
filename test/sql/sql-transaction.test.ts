// Several statements in one commit: tx.sql inside catalog.transaction reads what the transaction has done so
// far (inserted rows, updated ones, a table it created) and writes into it; the commit is one snapshot, or
// nothing when any statement fails.
import { describe, expect, it } from 'vitest';
import { type Catalog, isStrataError } from '../../src/index.js';
import { openCatalog } from '../helpers.js';

const head = async (c: Catalog) => (await c.snapshots()).at(-1)!.id;

describe('tx.sql: statements in one transaction', () => {
  it('each statement sees the ones before it, DDL then DML included; one snapshot; AT reads the committed past', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id BIGINT NOT NULL, v VARCHAR)');
    await c.sql(`INSERT INTO t VALUES (0, 'zero')`);
    const before = await head(c);
    const seen: unknown[] = [];
    const { snapshot } = await c.transaction(async (tx) => {
      await tx.sql(`INSERT INTO t VALUES (1, 'a'), (2, 'b')`);
      seen.push((await tx.sql('SELECT count(*) AS n FROM t')).rows);
      expect((await tx.sql(`UPDATE t SET v = 'z' WHERE id IN (0, 1)`)).rows).toEqual([{ Count: 2n }]);
      expect((await tx.sql('DELETE FROM t WHERE id = 2')).rows).toEqual([{ Count: 1n }]);
      await tx.sql('CREATE TABLE u (x INTEGER)');
      await tx.sql('INSERT INTO u SELECT id FROM t');
      seen.push((await tx.sql('SELECT list(x ORDER BY x) AS xs FROM u')).rows);
      seen.push((await tx.sql(`SELECT count(*) AS n FROM t AT (VERSION => ${before})`)).rows);
      // What the SQL wrote and what the calls do are one transaction.
      await tx.setOption('loaded_by', 'tx.sql');
    });
    expect(seen).toEqual([[{ n: 3n }], [{ xs: [0, 1] }], [{ n: 1n }]]);
    expect(snapshot).toBe(before + 1);
    expect(await head(c)).toBe(before + 1);
    expect((await c.sql('SELECT id, v FROM t ORDER BY id')).rows).toEqual([
      { id: 0n, v: 'z' },
      { id: 1n, v: 'z' },
    ]);
    expect((await c.sql('SELECT count(*) AS n FROM u')).rows).toEqual([{ n: 2n }]);
    expect((await c.options()).loaded_by).toBe('tx.sql');
    // Row by row the commit is its net effect: row 0 updated, row 1 inserted (as it ended), row 2 never there.
    const changes = await c.tableChanges('main', 't', { from: snapshot!, to: snapshot! });
    expect(changes.rows.map((r) => [r.change_type, r.id, r.v])).toEqual([
      ['update_preimage', 0n, 'zero'],
      ['update_postimage', 0n, 'z'],
      ['insert', 1n, 'z'],
    ]);
    expect((await c.verify({ files: true })).violations).toEqual([]);
  });

  it('a statement that fails fails the transaction: nothing of the statements before it is committed', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id BIGINT NOT NULL)');
    const at = await head(c);
    const failed = await c
      .transaction(async (tx) => {
        await tx.sql('INSERT INTO t VALUES (1), (2)');
        await tx.sql('CREATE TABLE u (x INTEGER)');
        await tx.sql('UPDATE t SET id = NULL WHERE id = 1');
      })
      .catch((e: unknown) => e);
    expect(isStrataError(failed, 'INVALID_ARGUMENT'), String(failed)).toBe(true);
    expect(await head(c)).toBe(at);
    expect((await c.sql('SELECT count(*) AS n FROM t')).rows).toEqual([{ n: 0n }]);
    expect((await (await c.reader()).tables('main')).map((t) => t.name)).toEqual(['t']);
  });
});
