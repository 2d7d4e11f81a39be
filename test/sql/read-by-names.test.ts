// Files with field ids are read by the names their own footers give each id (DuckDB reads a field-id schema on
// one thread): every column must still be the file's column with that id. Names swapped by renames, a column
// dropped and another added under its name, a widened type, and files of several layouts in one table, with
// deletes: each answer as the table's history says, row for row.
import { describe, expect, it } from 'vitest';
import { openCatalog, tempDir } from '../helpers.js';

describe('files read by the names their field ids have', () => {
  it('give each column its own values through swapped names, a name reused by a new column, a widened type and deletes', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.sql('CREATE TABLE t (id INTEGER, a VARCHAR, b VARCHAR, x INTEGER)');
    await c.sql(`INSERT INTO t SELECT i, 'a' || i, 'b' || i, i * 10 FROM range(4) r(i)`);
    // a and b swap names; x is dropped and a new x (a new column id) added with a default.
    await c.sql('ALTER TABLE t RENAME COLUMN a TO tmp');
    await c.sql('ALTER TABLE t RENAME COLUMN b TO a');
    await c.sql('ALTER TABLE t RENAME COLUMN tmp TO b');
    await c.sql('ALTER TABLE t DROP COLUMN x');
    await c.sql(`ALTER TABLE t ADD COLUMN x VARCHAR DEFAULT 'new'`);
    await c.sql('ALTER TABLE t ALTER COLUMN id SET DATA TYPE BIGINT');
    await c.sql(`INSERT INTO t (id, a, b, x) VALUES (5000000000, 'second a', 'second b', 'second x')`);
    await c.sql('DELETE FROM t WHERE id = 1');
    const want = [
      { id: 0n, a: 'b0', b: 'a0', x: 'new' },
      { id: 2n, a: 'b2', b: 'a2', x: 'new' },
      { id: 3n, a: 'b3', b: 'a3', x: 'new' },
      { id: 5000000000n, a: 'second a', b: 'second b', x: 'second x' },
    ];
    expect((await c.sql('SELECT id, a, b, x FROM t ORDER BY id')).rows).toEqual(want);
    // In a fresh process's view of the files too, where every footer is read for its names.
    await c.close();
    const again = await openCatalog({ dir });
    expect((await again.sql('SELECT id, a, b, x FROM t ORDER BY id')).rows).toEqual(want);
    expect((await again.sql(`SELECT count(*) AS n FROM t WHERE x = 'new' AND a LIKE 'b%'`)).rows).toEqual([{ n: 3n }]);
    await again.close();
  });

  it('read files whose names agree and whose types differ apart: a widened column keeps its values past the old type', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE w (id INTEGER, v SMALLINT)');
    await c.sql('INSERT INTO w VALUES (1, 7), (2, -3)');
    await c.sql('ALTER TABLE w ALTER COLUMN id SET DATA TYPE BIGINT');
    await c.sql('ALTER TABLE w ALTER COLUMN v SET DATA TYPE INTEGER');
    await c.sql('INSERT INTO w VALUES (5000000000, 100000), (-5000000000, -100000)');
    expect((await c.sql('SELECT id, v FROM w ORDER BY id')).rows).toEqual([
      { id: -5000000000n, v: -100000 },
      { id: 1n, v: 7 },
      { id: 2n, v: -3 },
      { id: 5000000000n, v: 100000 },
    ]);
    expect((await c.sql('SELECT sum(id) AS s, sum(v) AS t FROM w')).rows).toEqual([{ s: 3n, t: 4n }]);
  });
});
