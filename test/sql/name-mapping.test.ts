// A Parquet file whose columns carry no field ids, registered with addDataFile as DuckLake's
// ducklake_add_data_files registers existing files: read by name through the mapping recorded when it was
// registered (DuckLake's mapping_id, map_by_name), never as NULLs; refused when its columns cannot be read as
// the table's; refused at its first read when it was registered before the store held it.
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Catalog, isStrataError } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { keysBySpace } from '../gc/gc-helpers.js';
import { freshS3Store, s3Options } from '../store/s3-env.js';
import { deleteFileBytes } from '../support/delete-file.js';
import { openCatalog, tempDir } from '../helpers.js';
import { parquet } from '../support/parquet-bytes.js';

async function catalog() {
  const dir = await tempDir();
  const c = await openCatalog({ dir });
  const store = new DirectoryStore(path.join(dir, 'store'));
  await c.sql('CREATE TABLE t (id BIGINT, name VARCHAR)');
  /** Puts `bytes` in the store (unless `unstored`) and registers them as a data file of `rows` rows. */
  const add = async (name: string, bytes: Uint8Array, rows: number, opts: { unstored?: boolean } = {}) => {
    if (!opts.unstored) await store.putIfAbsent(`${c.dataPath}${name}`, bytes);
    return c.transaction((tx) => tx.addDataFile('main', 't', { path: name, recordCount: rows, fileSizeBytes: bytes.length }));
  };
  return { dir, c, store, add };
}

const rows = async (c: Catalog, sql: string) => (await c.sql(sql)).rows;
const head = async (c: Catalog) => (await c.snapshots()).at(-1)!.id;

describe('a data file without field ids', () => {
  it('is read by name through the mapping recorded when it was registered: values, not NULLs, through renames, deletes, updates, a restore and a compaction', async () => {
    const { c, add } = await catalog();
    // Named as DuckDB spells it (ID for id), in a narrower type (INTEGER for BIGINT), in another order.
    const bytes = await parquet(`SELECT 'n' || i AS name, i::INTEGER AS ID FROM range(5) r(i)`);
    const { snapshot: added } = await add('ext/x.parquet', bytes, 5);
    expect(await rows(c, 'SELECT id, name FROM t ORDER BY id')).toEqual([0, 1, 2, 3, 4].map((i) => ({ id: BigInt(i), name: `n${i}` })));
    const r = await c.reader();
    const [file] = await r.dataFiles('main', 't');
    await r.close();
    expect(file!.mappingId).toEqual(expect.any(Number));
    // The mapping names columns by id: a rename and an added column read as the table has them now.
    await c.sql('ALTER TABLE t RENAME COLUMN name TO label');
    await c.sql(`ALTER TABLE t ADD COLUMN score INTEGER DEFAULT 7`);
    expect(await rows(c, 'SELECT id, label, score FROM t WHERE id = 1')).toEqual([{ id: 1n, label: 'n1', score: 7 }]);
    await c.sql('DELETE FROM t WHERE id = 2');
    await c.sql(`UPDATE t SET label = 'x' WHERE id = 3`);
    expect(await rows(c, 'SELECT id, label FROM t ORDER BY id')).toEqual([
      { id: 0n, label: 'n0' },
      { id: 1n, label: 'n1' },
      { id: 3n, label: 'x' },
      { id: 4n, label: 'n4' },
    ]);
    const changes = await c.tableChanges('main', 't', { from: added!, to: await head(c) });
    expect(changes.rows.filter((x) => x.change_type === 'insert').map((x) => x.label)).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
    // A restore (of its columns too) brings the file back under a new id, with its mapping; a compaction
    // rewrites it with field ids.
    const { snapshot: restored } = await c.restoreTable('main', 't', added!);
    expect(await rows(c, `SELECT count(*) AS n, count(name) AS named FROM t`)).toEqual([{ n: 5n, named: 5n }]);
    expect(await rows(c, `SELECT count(*) AS n FROM t AT (VERSION => ${restored})`)).toEqual([{ n: 5n }]);
    await c.sql('DELETE FROM t WHERE id = 0');
    const compacted = await c.compact('main', 't');
    expect(compacted.snapshot).not.toBeNull();
    const after = await c.reader();
    expect((await after.dataFiles('main', 't')).map((f) => f.mappingId)).toEqual([null]);
    await after.close();
    expect(await rows(c, 'SELECT id, name FROM t ORDER BY id')).toEqual([1, 2, 3, 4].map((i) => ({ id: BigInt(i), name: `n${i}` })));
    // verify rebuilds the index from the log and compares: the manifests and rows carry the mapping.
    expect((await c.verify({ files: true })).violations).toEqual([]);
  });

  it('files read by id and files of two mappings each keep their own deletes, whatever position they share', async () => {
    const { c, add } = await catalog();
    // Two files without field ids, laid out differently (two mappings), and one DuckDB writes with them (by
    // id): rows 0–4, 10–14 and 20–24, so position k of each file holds a different id.
    await add('ext/a.parquet', await parquet(`SELECT i AS id, 'a' || i AS name FROM range(5) r(i)`), 5);
    await add('ext/b.parquet', await parquet(`SELECT 'b' || (10 + i) AS name, (10 + i)::BIGINT AS id FROM range(5) r(i)`), 5);
    await c.sql(`INSERT INTO t SELECT 20 + i, 'c' || (20 + i) FROM range(5) r(i)`);
    const r = await c.reader();
    expect((await r.dataFiles('main', 't')).map((f) => f.mappingId === null)).toEqual([false, false, true]);
    await r.close();
    // Each statement deletes from one file only, at positions the others' rows also have.
    const gone = [1, 13, 14, 20, 22];
    for (const id of gone) await c.sql(`DELETE FROM t WHERE id = ${id}`);
    const all = [...[0, 1, 2, 3, 4], ...[10, 11, 12, 13, 14], ...[20, 21, 22, 23, 24]];
    const left = all.filter((i) => !gone.includes(i));
    expect((await rows(c, 'SELECT id FROM t ORDER BY id')).map((x) => Number(x.id))).toEqual(left);
    expect(await rows(c, 'SELECT count(*) AS n, sum(id) AS s FROM t')).toEqual([{ n: BigInt(left.length), s: BigInt(left.reduce((a, b) => a + b, 0)) }]);
    // An UPDATE reads through the same deletes and rewrites only what it matched.
    await c.sql(`UPDATE t SET name = 'x' WHERE id IN (2, 12, 21)`);
    expect((await rows(c, `SELECT id FROM t WHERE name = 'x' ORDER BY id`)).map((x) => Number(x.id))).toEqual([2, 12, 21]);
    expect((await rows(c, 'SELECT id FROM t ORDER BY id')).map((x) => Number(x.id))).toEqual(left);
  });

  it('is refused when registered if its columns cannot be read as the table: one it lacks, one more, a type the column does not widen from, some with field ids', async () => {
    const { c, add } = await catalog();
    const at = await head(c);
    // Each message says what to write instead: the field ids, or the type.
    const cases: [string, Uint8Array, RegExp][] = [
      ['lacks.parquet', await parquet(`SELECT 1::BIGINT AS id`), /has no column named name.*FIELD_IDS/],
      ['extra.parquet', await parquet(`SELECT 1::BIGINT AS id, 'a' AS name, 2 AS other`), /columns other are not columns of.*FIELD_IDS/],
      ['type.parquet', await parquet(`SELECT 'one' AS id, 'a' AS name`), /column id is VARCHAR, and column id of "main"\."t" is BIGINT, which it does not widen to; write it as BIGINT/],
      ['mixed.parquet', await parquet(`SELECT 1::BIGINT AS id, 'a' AS name`, '{id: 1}'), /some of its columns carry field ids.*FIELD_IDS/],
      ['stranger.parquet', await parquet(`SELECT 1::BIGINT AS id, 'a' AS name`, '{id: 41, name: 42}'), /field id 41, which is no column of.*FIELD_IDS/],
    ];
    for (const [name, bytes, why] of cases) {
      const e = await add(name, bytes, 1).catch((x: unknown) => x);
      expect(isStrataError(e, 'INVALID_ARGUMENT'), `${name}: ${String(e)}`).toBe(true);
      expect((e as Error).message, name).toMatch(why);
    }
    expect(await head(c)).toBe(at);
  });

  it('registered before the store held it, is refused when first read, not read as NULLs', async () => {
    const { c, store, add } = await catalog();
    const bytes = await parquet(`SELECT i::BIGINT AS id, 'n' || i AS name FROM range(3) r(i)`);
    await add('late.parquet', bytes, 3, { unstored: true });
    await store.putIfAbsent(`${c.dataPath}late.parquet`, bytes);
    const e = await c.sql('SELECT * FROM t').catch((x: unknown) => x);
    expect(isStrataError(e, 'CORRUPT'), String(e)).toBe(true);
    expect((e as Error).message).toMatch(/late\.parquet is registered to be read by Parquet field id, and its columns carry none/);
    const d = await c.sql('DELETE FROM t WHERE id = 1').catch((x: unknown) => x);
    expect(isStrataError(d, 'CORRUPT'), String(d)).toBe(true);
  });

  const s3 = s3Options();
  it.skipIf(s3 === undefined)('on S3 nothing is read when it is registered (no request on the commit path): the first read refuses it, and a delete file that does not fit', async () => {
    const store = await freshS3Store(s3!);
    const c = await openCatalog({ dir: await tempDir(), store });
    await c.sql('CREATE TABLE t (id BIGINT, name VARCHAR)');
    await c.sql(`INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')`);
    const r = await c.reader();
    const [f] = await r.dataFiles('main', 't');
    await r.close();
    const del = await deleteFileBytes(f!.path, [1, 1]);
    await store.putIfAbsent(`${c.dataPath}twice.parquet`, del);
    await c.transaction((tx) => tx.addDeleteFile('main', 't', { dataFileId: f!.id, path: 'twice.parquet', deleteCount: 2, fileSizeBytes: del.length }));
    const e = await c.sql('SELECT * FROM t').catch((x: unknown) => x);
    expect(isStrataError(e, 'CORRUPT'), String(e)).toBe(true);
    expect((e as Error).message).toMatch(/twice\.parquet.*more than once/);

    await c.sql('CREATE TABLE u (id BIGINT, name VARCHAR)');
    const bytes = await parquet(`SELECT 1::BIGINT AS id, 'x' AS name`);
    await store.putIfAbsent(`${c.dataPath}plain.parquet`, bytes);
    await c.transaction((tx) => tx.addDataFile('main', 'u', { path: 'plain.parquet', recordCount: 1, fileSizeBytes: bytes.length }));
    const read = await c.sql('SELECT * FROM u').catch((x: unknown) => x);
    expect(isStrataError(read, 'CORRUPT'), String(read)).toBe(true);
    expect((read as Error).message).toMatch(/plain\.parquet is registered to be read by Parquet field id, and its columns carry none/);
  });

  it('its mapping goes with its row at excision, and verify ties each mapping to its row', async () => {
    const { dir, c, add } = await catalog();
    await add('old.parquet', await parquet(`SELECT 1::BIGINT AS id, 'a' AS name`), 1);
    await add('kept.parquet', await parquet(`SELECT 2::BIGINT AS id, 'b' AS name`), 1);
    const r = await c.reader();
    const [old] = await r.dataFiles('main', 't');
    await r.close();
    await c.transaction((tx) => tx.removeDataFile('main', 't', old!.id));
    await c.advanceRetainFrom({ snapshot: await head(c) });
    expect((await c.excise()).versions).toBeGreaterThan(0);
    expect((await c.verify({ files: true })).violations).toEqual([]);
    expect(await rows(c, 'SELECT id, name FROM t')).toEqual([{ id: 2n, name: 'b' }]);
    await c.close();
    expect((await keysBySpace(dir)).NameMapping).toBe(1); // the removed file's went with it
  });

  it('files of one transaction laid out alike share one mapping id; files with field ids need none', async () => {
    const { c, store } = await catalog();
    const r0 = await c.reader();
    const columns = (await r0.table('main', 't')).columns;
    await r0.close();
    const ids = `{id: ${columns[0]!.id}, name: ${columns[1]!.id}}`;
    const files = [await parquet(`SELECT 1::BIGINT AS id, 'a' AS name`), await parquet(`SELECT 2::BIGINT AS id, 'b' AS name`), await parquet(`SELECT 3::BIGINT AS id, 'c' AS name`, ids)];
    for (const [i, b] of files.entries()) await store.putIfAbsent(`${c.dataPath}f${i}.parquet`, b);
    await c.transaction(async (tx) => {
      for (const [i, b] of files.entries()) await tx.addDataFile('main', 't', { path: `f${i}.parquet`, recordCount: 1, fileSizeBytes: b.length });
    });
    const r = await c.reader();
    const mapped = (await r.dataFiles('main', 't')).map((f) => f.mappingId);
    await r.close();
    expect(mapped[0]).toEqual(expect.any(Number));
    expect(mapped).toEqual([mapped[0], mapped[0], null]);
    expect(await rows(c, 'SELECT id, name FROM t ORDER BY id')).toEqual([{ id: 1n, name: 'a' }, { id: 2n, name: 'b' }, { id: 3n, name: 'c' }]);
    // A statement inside the transaction that registers such a file reads it through the mapping it made.
    const more = await parquet(`SELECT 4::BIGINT AS id, 'd' AS name`);
    await store.putIfAbsent(`${c.dataPath}f3.parquet`, more);
    await c.transaction(async (tx) => {
      await tx.addDataFile('main', 't', { path: 'f3.parquet', recordCount: 1, fileSizeBytes: more.length });
      expect((await tx.sql('SELECT name FROM t WHERE id = 4')).rows).toEqual([{ name: 'd' }]);
    });
  });
});
