// Files without field ids (registered by name, as ducklake_add_data_files registers existing files) travel
// through an export and an import with their name mappings: DuckLake's mapping_id on the file row and its
// ducklake_column_mapping / ducklake_name_mapping rows. A mapping that does not say what the file's column
// names say is refused at import, naming the file; a file exported without its mapping would read as NULLs.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { type Catalog, importDuckLake, isStrataError } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { openCatalog, tempDir } from '../helpers.js';
import { parquet } from '../support/parquet-bytes.js';

/** A catalog with a file registered by name (then its column renamed and another added), exported. */
async function exported(): Promise<{ c: Catalog; file: string; dir: string }> {
  const dir = await tempDir();
  const c = await openCatalog({ dir: path.join(dir, 'a') });
  await c.sql('CREATE TABLE t (id BIGINT, name VARCHAR)');
  const bytes = await parquet(`SELECT 'n' || i AS name, i::INTEGER AS ID FROM range(5) r(i)`);
  await new DirectoryStore(path.join(dir, 'a', 'store')).putIfAbsent(`${c.dataPath}ext/x.parquet`, bytes);
  await c.transaction((tx) => tx.addDataFile('main', 't', { path: 'ext/x.parquet', recordCount: 5, fileSizeBytes: bytes.length }));
  await c.sql('ALTER TABLE t RENAME COLUMN name TO label');
  await c.sql(`INSERT INTO t VALUES (9, 'by id')`);
  const file = path.join(dir, 'lake.sqlite');
  await c.exportDuckLake(file);
  return { c, file, dir };
}

const everything = async (c: Catalog, at: number) => (await c.sql(`SELECT * FROM t AT (VERSION => ${at}) ORDER BY id`)).rows;

describe('name mappings through export and import', () => {
  it('are exported as DuckLake keeps them and imported with their files: every snapshot reads the same, values not NULLs', async () => {
    const { c, file, dir } = await exported();
    const db = new Database(file, { readonly: true });
    try {
      const files = db.prepare('SELECT path, mapping_id FROM ducklake_data_file ORDER BY data_file_id').all() as { path: string; mapping_id: number | null }[];
      const mapped = files.filter((f) => f.mapping_id !== null);
      expect(mapped.map((f) => f.path)).toEqual(['ext/x.parquet']);
      expect(db.prepare('SELECT table_id, type FROM ducklake_column_mapping WHERE mapping_id = ?').all(mapped[0]!.mapping_id)).toEqual([{ table_id: expect.any(Number), type: 'map_by_name' }]);
      const names = db.prepare('SELECT source_name, target_field_id FROM ducklake_name_mapping WHERE mapping_id = ? ORDER BY target_field_id').all(mapped[0]!.mapping_id);
      const columns = (await (await c.reader()).table('main', 't')).columns;
      expect(names).toEqual([
        { source_name: 'ID', target_field_id: columns.find((x) => x.name === 'id')!.id },
        { source_name: 'name', target_field_id: columns.find((x) => x.name === 'label')!.id },
      ]);
    } finally {
      db.close();
    }
    await importDuckLake(file, { dir: path.join(dir, 'imported'), copyFiles: true });
    const imported = await openCatalog({ dir: path.join(dir, 'imported') });
    for (const s of await c.snapshots()) {
      if ((await (await c.reader({ snapshot: s.id })).tables('main')).length === 0) continue;
      expect(await everything(imported, s.id), `snapshot ${s.id}`).toEqual(await everything(c, s.id));
    }
    expect((await everything(imported, (await c.snapshots()).at(-1)!.id)).map((r) => r.label)).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'by id']);
    expect((await imported.verify({ files: true })).violations).toEqual([]);
  });

  it('a mapping that does not say what the file says, of another table, or of hive partitions is refused, naming the file, and nothing is left', async () => {
    const { file, dir } = await exported();
    const tamper = async (name: string, sql: string) => {
      const copy = path.join(dir, `${name}.sqlite`);
      const db = new Database(file, { readonly: true });
      await db.backup(copy);
      db.close();
      const t = new Database(copy);
      t.exec(sql);
      t.close();
      return copy;
    };
    for (const [name, sql, said] of [
      ['swapped', 'UPDATE ducklake_name_mapping SET target_field_id = 3 - target_field_id', /not what its columns' names say/],
      ['renamed', "UPDATE ducklake_name_mapping SET source_name = 'nope' WHERE source_name = 'name'", /not what its columns' names say/],
      ['other-table', 'UPDATE ducklake_column_mapping SET table_id = table_id + 100', /names name mapping \d+, which is table \d+'s/],
      ['hive', 'UPDATE ducklake_name_mapping SET is_partition = 1', /hive partitions/],
      ['missing', 'DELETE FROM ducklake_column_mapping', /ducklake_name_mapping row .* names mapping \d+, which ducklake_column_mapping does not hold/],
    ] as const) {
      const target = path.join(dir, `into-${name}`);
      const err = await importDuckLake(await tamper(name, sql), { dir: target, copyFiles: true }).catch((e: unknown) => e);
      expect(isStrataError(err, 'INVALID_ARGUMENT'), `${name}: ${String(err)}`).toBe(true);
      expect((err as Error).message, name).toMatch(said);
      expect(existsSync(target), name).toBe(false);
    }
  });
});
