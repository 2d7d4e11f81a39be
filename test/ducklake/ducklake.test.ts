// DuckLake export and import: the export's tables are the specification's, plain SQL over them (the
// specification's own queries) answers as Strata's readers do at every snapshot, and an import of the export
// is a catalog whose readers and SQL answer identically at every snapshot — over a history with renames, an
// added column, drops, delete files, a restore, a view and tags, all of real Parquet.
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { type Catalog, importDuckLake, isStrataError } from '../../src/index.js';
import { openCatalog, tempDir } from '../helpers.js';
import { history } from './lakes.js';

const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'ducklake-1.0.sql');

/** The specification's tables: name → [column, declared type, not null, primary key][]. */
async function specTables(): Promise<Map<string, [string, string, boolean, boolean][]>> {
  const out = new Map<string, [string, string, boolean, boolean][]>();
  for (const line of (await readFile(FIXTURE, 'utf8')).split('\n')) {
    const m = /^CREATE TABLE (\w+)\((.*)\);$/.exec(line.trim());
    if (!m) continue;
    out.set(m[1]!, m[2]!.split(',').map((d) => {
      const [name, ...rest] = d.trim().split(/\s+/);
      const def = rest.join(' ');
      return [name!, def.replace(/ (PRIMARY KEY|NOT NULL)/g, ''), def.includes('NOT NULL'), def.includes('PRIMARY KEY')];
    }));
  }
  return out;
}

/** What a reader at `at` and SQL say about every table: the answers an import must reproduce. */
async function answers(c: Catalog, at: number): Promise<unknown> {
  const r = await c.reader({ snapshot: at });
  try {
    const out: Record<string, unknown> = { snapshot: r.snapshot };
    for (const s of await r.schemas()) {
      out[`views ${s.name}`] = await r.views(s.name);
      for (const t of await r.tables(s.name)) {
        const q = `"${s.name}"."${t.name}"`;
        out[q] = {
          table: await r.table(s.name, t.name),
          dataFiles: await r.dataFiles(s.name, t.name),
          deleteFiles: await r.deleteFiles(s.name, t.name),
          rows: (await c.sql(`SELECT * FROM ${q} AT (VERSION => ${at}) ORDER BY ALL`)).rows,
        };
      }
    }
    return out;
  } finally {
    await r.close();
  }
}

describe('DuckLake export and import', () => {
  it("exports the specification's tables, which plain SQL reads as Strata's readers do; the import answers identically at every snapshot", { timeout: 120_000 }, async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir: path.join(dir, 'a') });
    const { tagged } = await history(c);
    const snapshots = await c.snapshots();
    const file = path.join(dir, 'lake.sqlite');
    const report = await c.exportDuckLake(file);
    expect(report.snapshots).toBe(snapshots.length);
    expect(report.deleteFiles).toBeGreaterThan(0);

    const db = new Database(file, { readonly: true });
    try {
      // Every table and column of the specification, in order, with its declared type and constraints.
      const spec = await specTables();
      const exported = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'ducklake_%' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
      expect(exported).toEqual([...spec.keys()].sort());
      for (const [table, columns] of spec) {
        const info = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string; type: string; notnull: number; pk: number }[];
        expect(info.map((i) => [i.name, i.type, i.notnull === 1, i.pk === 1]), table).toEqual(columns);
      }
      expect(db.prepare(`SELECT value FROM ducklake_metadata WHERE key = 'data_path'`).get()).toEqual({ value: c.dataFileLocation('x').slice(0, -1) });
      // Filled as DuckLake fills them: every default a typed literal ('NULL' for none), no file partial,
      // mapped, encrypted or partitioned.
      expect(db.prepare(`SELECT DISTINCT default_value, default_value_type, default_value_dialect FROM ducklake_column`).all()).toEqual([{ default_value: 'NULL', default_value_type: 'literal', default_value_dialect: 'duckdb' }]);
      for (const t of ['ducklake_data_file', 'ducklake_delete_file']) {
        expect(db.prepare(`SELECT count(*) AS n FROM ${t} WHERE partial_max IS NOT NULL OR encryption_key IS NOT NULL`).get(), t).toEqual({ n: 0 });
      }
      expect(db.prepare('SELECT count(*) AS n FROM ducklake_data_file WHERE mapping_id IS NOT NULL OR partition_id IS NOT NULL').get()).toEqual({ n: 0 });

      // The specification's queries (Queries: snapshot, schemas, tables, columns, data files) at every snapshot.
      const visible = 'begin_snapshot <= @s AND (end_snapshot IS NULL OR end_snapshot > @s)';
      for (const s of snapshots) {
        const r = await c.reader({ snapshot: s.id });
        const schemas = db.prepare(`SELECT schema_id AS id, schema_name AS name FROM ducklake_schema WHERE ${visible} ORDER BY schema_name`).all({ s: s.id });
        expect(schemas).toEqual((await r.schemas()).map((x) => ({ id: x.id, name: x.name })).sort((a, b) => a.name.localeCompare(b.name)));
        for (const schema of schemas as { id: number; name: string }[]) {
          const tables = db.prepare(`SELECT table_id AS id, table_name AS name FROM ducklake_table WHERE schema_id = @id AND ${visible} ORDER BY table_name`).all({ s: s.id, id: schema.id }) as { id: number; name: string }[];
          expect(tables.map((t) => t.name)).toEqual((await r.tables(schema.name)).map((t) => t.name).sort());
          for (const t of tables) {
            const columns = db.prepare(`SELECT column_id AS id, column_name AS name, column_type AS type FROM ducklake_column WHERE table_id = @t AND parent_column IS NULL AND ${visible} ORDER BY column_order`).all({ s: s.id, t: t.id });
            expect(columns).toEqual((await r.table(schema.name, t.name)).columns.map((x) => ({ id: x.id, name: x.name, type: x.type })));
            const files = db.prepare(`SELECT data_file_id AS id, path, record_count AS n FROM ducklake_data_file WHERE table_id = @t AND ${visible} ORDER BY data_file_id`).all({ s: s.id, t: t.id });
            expect(files).toEqual((await r.dataFiles(schema.name, t.name)).map((f) => ({ id: f.id, path: f.path, n: f.recordCount })).sort((a, b) => a.id - b.id));
            // Rows: the files' record counts less the deleted positions, as count(*) at that snapshot.
            const { n } = db.prepare(`SELECT (SELECT coalesce(sum(record_count), 0) FROM ducklake_data_file WHERE table_id = @t AND ${visible}) - (SELECT coalesce(sum(delete_count), 0) FROM ducklake_delete_file WHERE table_id = @t AND ${visible}) AS n`).get({ s: s.id, t: t.id }) as { n: number };
            expect(n).toBe(Number((await c.sql(`SELECT count(*) AS n FROM "${schema.name}"."${t.name}" AT (VERSION => ${s.id})`)).rows[0]!.n));
          }
        }
        await r.close();
      }
      // changes_made holds DuckLake's kinds only (DuckLake refuses others); a restore's own is in strata_snapshot.
      const ours = (s: { changes: string[] }) => s.changes.filter((x) => x.startsWith('restored_table:')).map((x) => x.split(':')[1]);
      const changes = db.prepare('SELECT changes_made, author, commit_message FROM ducklake_snapshot_changes ORDER BY snapshot_id').all();
      expect(changes).toEqual(snapshots.map((s) => ({ changes_made: s.changes.filter((x) => !x.startsWith('restored_table:')).join(','), author: s.author, commit_message: s.message })));
      const restored = db.prepare('SELECT restored_tables AS r FROM strata_snapshot ORDER BY snapshot_id').all() as { r: string | null }[];
      expect(restored.map((x) => x.r)).toEqual(snapshots.map((s) => (ours(s).length === 0 ? null : ours(s).join(','))));
      expect(snapshots.some((s) => ours(s).length > 0)).toBe(true);
    } finally {
      db.close();
    }

    // Import: a new catalog, the files copied into its store; every snapshot answers as the original does.
    const imported = await importDuckLake(file, { dir: path.join(dir, 'b'), copyFiles: true });
    expect(imported).toMatchObject({ snapshots: snapshots.length, tags: 2 });
    expect(imported.copiedFiles).toBeGreaterThan(0);
    const b = await openCatalog({ dir: path.join(dir, 'b') });
    expect((await b.snapshots()).map(({ id, time, changes, author, message }) => ({ id, time, changes, author, message }))).toEqual(
      snapshots.map(({ id, time, changes, author, message }) => ({ id, time, changes, author, message })),
    );
    expect((await b.tags()).map((t) => [t.name, t.snapshot])).toEqual((await c.tags()).map((t) => [t.name, t.snapshot]));
    for (const s of snapshots) expect(await answers(b, s.id), `snapshot ${s.id}`).toEqual(await answers(c, s.id));
    expect((await b.sql(`SELECT count(*) AS n FROM sales.orders AT (VERSION => 'loaded')`)).rows).toEqual([{ n: 22n }]);
    expect((await b.verify({ files: true })).violations).toEqual([]);
    // New commits on the import take ids after the lake's.
    await b.sql(`INSERT INTO sales.orders2 VALUES (300, 'open', 3.00)`);
    const files = await (await b.reader()).dataFiles('sales', 'orders2');
    expect(new Set(files.map((f) => f.id)).size).toBe(files.length);
    expect(tagged).toBeGreaterThan(0);
  });

  it('cut at a snapshot: the lake as it was then; an export never overwrites; an import never lands on a history', { timeout: 60_000 }, async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir: path.join(dir, 'a') });
    const { tagged } = await history(c);
    const file = path.join(dir, 'cut.sqlite');
    expect(await c.exportDuckLake(file, { at: tagged })).toMatchObject({ head: tagged, snapshots: tagged + 1 });
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT max(snapshot_id) AS m FROM ducklake_snapshot').get()).toEqual({ m: tagged });
    expect(db.prepare('SELECT count(*) AS n FROM ducklake_data_file WHERE begin_snapshot > ? OR end_snapshot > ?').get(tagged, tagged)).toEqual({ n: 0 });
    db.close();
    const err = await c.exportDuckLake(file).catch((e: unknown) => e);
    expect(isStrataError(err) && err.code).toBe('ALREADY_EXISTS');
    const bad = await c.exportDuckLake(path.join(dir, 'x.sqlite'), { at: 10_000 }).catch((e: unknown) => e);
    expect(isStrataError(bad) && bad.code).toBe('NOT_FOUND');

    await importDuckLake(file, { dir: path.join(dir, 'b'), copyFiles: true });
    const b = await openCatalog({ dir: path.join(dir, 'b') });
    for (let s = 0; s <= tagged; s++) expect(await answers(b, s)).toEqual(await answers(c, s));
    await b.close();
    const again = await importDuckLake(file, { dir: path.join(dir, 'b') }).catch((e: unknown) => e);
    expect(isStrataError(again) && again.code).toBe('ALREADY_EXISTS');
    // Without copyFiles, files outside the new catalog's data path are named, not silently missing.
    const missing = await importDuckLake(file, { dir: path.join(dir, 'c') }).catch((e: unknown) => e);
    expect(isStrataError(missing) && missing.code).toBe('NOT_FOUND');
    expect(String((missing as Error).message)).toMatch(/copyFiles/);
  });
});
