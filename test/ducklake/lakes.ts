// DuckLake lakes the import tests start from: one exported from a real history of real Parquet (renames, an
// added column, drops, deletes, an update, a restore, a view, tags), copied and tampered with by plain SQL on
// the SQLite file, as anyone could; and what an import leaves behind where it was told to build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { Catalog, type ImportOptions, type ImportReport, importDuckLake, isStrataError, type StrataError } from '../../src/index.js';

/** The history every exported lake holds; `tagged` is the snapshot tagged 'loaded'. */
export async function history(c: Catalog): Promise<{ tagged: number }> {
  await c.sql('CREATE SCHEMA sales');
  await c.sql('CREATE TABLE sales.orders (id BIGINT, status VARCHAR, amount DECIMAL(12,2))');
  await c.sql(`INSERT INTO sales.orders SELECT i, CASE WHEN i % 3 = 0 THEN 'void' ELSE 'open' END, i * 1.25 FROM range(20) r(i)`);
  await c.sql(`INSERT INTO sales.orders VALUES (100, 'open', 9.99), (101, 'paid', 1.50)`);
  await c.sql('CREATE TABLE main.scratch (x INTEGER)');
  await c.sql('INSERT INTO main.scratch VALUES (1), (2)');
  await c.sql(`CREATE VIEW sales.open_orders AS SELECT * FROM sales.orders WHERE status = 'open'`);
  const tagged = (await c.snapshots()).at(-1)!.id;
  await c.createTag('loaded', tagged);
  await c.sql(`DELETE FROM sales.orders WHERE status = 'void'`);
  await c.sql(`UPDATE sales.orders SET status = 'paid' WHERE id = 100`);
  await c.sql('ALTER TABLE sales.orders ADD COLUMN note VARCHAR');
  await c.sql(`INSERT INTO sales.orders VALUES (200, 'open', 2.00, 'late')`);
  await c.transaction((tx) => tx.renameTable('sales', 'orders', 'orders2'), { author: 'ops', message: 'rename' });
  await c.sql('DROP TABLE main.scratch');
  await c.restoreTable('sales', 'orders2', tagged);
  await c.createTag('restored', (await c.snapshots()).at(-1)!.id);
  return { tagged };
}

/** A lake exported from `history`, in a directory of its own: the SQLite file and the catalog whose files it names. */
export interface ExportedLake {
  root: string;
  file: string;
  /** The exporting catalog's directory (its store holds the lake's data path). */
  catalogDir: string;
  /** The lake's data path: the exporting catalog's data directory. */
  dataDir: string;
  tagged: number;
}

export async function exportedLake(): Promise<ExportedLake> {
  const root = await mkdtemp(path.join(tmpdir(), 'strata-lake-'));
  const catalogDir = path.join(root, 'source');
  const c = await Catalog.open({ dir: catalogDir });
  try {
    const { tagged } = await history(c);
    const file = path.join(root, 'lake.sqlite');
    await c.exportDuckLake(file);
    return { root, file, catalogDir, dataDir: path.join(catalogDir, 'store', 'data'), tagged };
  } finally {
    await c.close();
  }
}

export const removeLake = (lake: ExportedLake | undefined) => (lake === undefined ? Promise.resolve() : rm(lake.root, { recursive: true, force: true }));

let copies = 0;

/** A copy of `lake`'s file with `sql` run on it (several statements may be given). */
export async function tampered(lake: ExportedLake, sql: string, bind: Record<string, unknown> = {}): Promise<string> {
  const file = path.join(lake.root, `tampered-${++copies}.sqlite`);
  await copyFile(lake.file, file);
  const db = new Database(file);
  try {
    if (Object.keys(bind).length === 0) db.exec(sql);
    else db.prepare(sql).run(bind);
  } finally {
    db.close();
  }
  return file;
}

/** Every path under `dir` (relative, sorted), or null when it does not exist. */
export function listing(dir: string): string[] | null {
  if (!existsSync(dir)) return null;
  return (readdirSync(dir, { recursive: true }) as string[]).map((p) => p.split(path.sep).join('/')).sort();
}

/** An import's outcome: its report, or the StrataError it failed with (anything else fails the test). */
export async function outcome(file: string, opts: ImportOptions): Promise<{ report?: ImportReport; error?: StrataError }> {
  try {
    return { report: await importDuckLake(file, opts) };
  } catch (e) {
    if (!isStrataError(e)) throw e;
    return { error: e };
  }
}

/**
 * A copy of `lake` that goes on as DuckLake 1.0 goes on with small inserts: it keeps their rows in its catalog
 * (ducklake_inlined_data_<table>_<schema version>, registered in ducklake_inlined_data_tables; row_id,
 * begin_snapshot, end_snapshot, then the table's columns as SQLite holds them — a list as DuckDB's text of
 * it), and deletes one by setting its end_snapshot; a few rows of a data file it deletes inline too
 * (ducklake_inlined_delete_<table>: file, position, snapshot). From snapshot 15: a new table sales.small (k,
 * label, price, tags VARCHAR[]); three rows into it; one deleted, and a row of each data file of sales.orders2;
 * two more rows, two into sales.orders2 and a delete file for one of its files; the other two of the first
 * three deleted, and another row of each orders2 file; the table dropped with two rows still in it.
 */
export async function inlinedLake(lake: ExportedLake): Promise<string> {
  const file = path.join(lake.root, `inlined-${++copies}.sqlite`);
  await copyFile(lake.file, file);
  const deleted = await deletedPositions(lake);
  const db = new Database(file);
  try {
    const head = db.prepare('SELECT * FROM ducklake_snapshot ORDER BY snapshot_id DESC LIMIT 1').get() as { snapshot_id: number; snapshot_time: string; schema_version: number; next_catalog_id: number; next_file_id: number };
    const t0 = Date.parse(head.snapshot_time.replace(' ', 'T').replace(/\+00$/, 'Z'));
    const orders = (db.prepare("SELECT table_id FROM ducklake_table WHERE table_name = 'orders2' AND end_snapshot IS NULL").get() as { table_id: number }).table_id;
    const nextRowId = (db.prepare('SELECT next_row_id FROM ducklake_table_stats WHERE table_id = ?').get(orders) as { next_row_id: number }).next_row_id;
    const small = head.next_catalog_id;
    const v = head.schema_version + 1;
    const snapshot = (id: number, changes: string, schemaVersion = v, nextCatalogId = small + 1) => {
      const nextFileId = head.next_file_id + (id >= head.snapshot_id + 4 ? 1 : 0);
      db.prepare('INSERT INTO ducklake_snapshot VALUES (?, ?, ?, ?, ?)').run(id, new Date(t0 + (id - head.snapshot_id) * 1000).toISOString().replace('T', ' ').replace('Z', '+00'), schemaVersion, nextCatalogId, nextFileId);
      db.prepare('INSERT INTO ducklake_snapshot_changes VALUES (?, ?, NULL, NULL, NULL)').run(id, changes);
    };
    const s = head.snapshot_id;
    snapshot(s + 1, 'created_table:"sales"."small"');
    db.prepare("INSERT INTO ducklake_table VALUES (?, '3b0c5cde-2d0b-4b9e-9d2a-1c3d4e5f6a7b', ?, ?, 1, 'small', '', 1)").run(small, s + 1, s + 6);
    const column = db.prepare("INSERT INTO ducklake_column VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 'NULL', 1, ?, 'literal', 'duckdb')");
    for (const [id, order, name, type, parent] of [[1, 1, 'k', 'int64', null], [2, 2, 'label', 'varchar', null], [3, 3, 'price', 'decimal(12,2)', null], [4, 4, 'tags', 'list', null], [5, 1, 'element', 'varchar', 4]] as const) {
      column.run(id, s + 1, s + 6, small, order, name, type, parent);
    }
    db.prepare('INSERT INTO ducklake_schema_versions VALUES (?, ?, ?)').run(s + 1, v, small);
    db.prepare('INSERT INTO ducklake_inlined_data_tables VALUES (?, ?, ?)').run(small, `ducklake_inlined_data_${small}_${v}`, v);
    db.exec(`CREATE TABLE ducklake_inlined_data_${small}_${v}(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, k BIGINT, label VARCHAR, price DECIMAL(12,2), tags VARCHAR)`);
    db.prepare('INSERT INTO ducklake_inlined_data_tables VALUES (?, ?, ?)').run(orders, `ducklake_inlined_data_${orders}_${head.schema_version}`, head.schema_version);
    db.exec(`CREATE TABLE ducklake_inlined_data_${orders}_${head.schema_version}(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, id BIGINT, status VARCHAR, amount DECIMAL(12,2))`);
    const small_ = db.prepare(`INSERT INTO ducklake_inlined_data_${small}_${v} VALUES (?, ?, NULL, ?, ?, ?, ?)`);
    snapshot(s + 2, `inserted_into_table:${small}`);
    small_.run(0, s + 2, 10, 'ten', 1.5, '[a, b]');
    small_.run(1, s + 2, 11, 'eleven', 2, '[]');
    small_.run(2, s + 2, 12, null, null, null);
    snapshot(s + 3, `deleted_from_table:${small},deleted_from_table:${orders}`);
    db.prepare(`UPDATE ducklake_inlined_data_${small}_${v} SET end_snapshot = ? WHERE row_id = 1`).run(s + 3);
    // Two rows of each of orders2's live data files deleted inline (rows its delete file, if any, keeps).
    db.exec(`CREATE TABLE ducklake_inlined_delete_${orders}(file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)`);
    const inline = db.prepare(`INSERT INTO ducklake_inlined_delete_${orders} VALUES (?, ?, ?)`);
    const files = db.prepare('SELECT data_file_id AS id, record_count AS n FROM ducklake_data_file WHERE table_id = ? AND end_snapshot IS NULL ORDER BY 1').all(orders) as { id: number; n: number }[];
    const free = new Map(files.map((f) => [f.id, Array.from({ length: f.n }, (_, i) => i).filter((i) => !deleted.get(f.id)?.has(i))]));
    for (const f of files) {
      inline.run(f.id, free.get(f.id)![0], s + 3);
      inline.run(f.id, free.get(f.id)!.at(-1), s + 5);
    }
    snapshot(s + 4, `inserted_into_table:${small},inserted_into_table:${orders},deleted_from_table:${orders}`);
    // And a delete file written after those inline deletes, for the first file: a reader applies both.
    const first = files[0]!;
    const deletes = await deleteFileOf(lake, first.id, [free.get(first.id)![1]!], `late-${copies}-deletes.parquet`);
    db.prepare(`INSERT INTO ducklake_delete_file VALUES (?, ?, ?, NULL, ?, ?, 1, 'parquet', 1, ?, NULL, NULL, NULL)`).run(head.next_file_id, orders, s + 4, first.id, deletes.path, deletes.size);
    small_.run(3, s + 4, 13, 'thirteen', 3.25, "[c, 'd e']");
    small_.run(4, s + 4, 14, 'fourteen', 0.01, '[NULL]');
    const orders_ = db.prepare(`INSERT INTO ducklake_inlined_data_${orders}_${head.schema_version} VALUES (?, ?, NULL, ?, ?, ?)`);
    orders_.run(nextRowId, s + 4, 900, 'open', 9);
    orders_.run(nextRowId + 1, s + 4, 901, 'paid', 10.5);
    snapshot(s + 5, `deleted_from_table:${small}`);
    db.prepare(`UPDATE ducklake_inlined_data_${small}_${v} SET end_snapshot = ? WHERE row_id IN (0, 2)`).run(s + 5);
    snapshot(s + 6, `dropped_table:${small}`, v + 1);
    db.prepare('UPDATE ducklake_table_stats SET next_row_id = ? WHERE table_id = ?').run(nextRowId + 2, orders);
  } finally {
    db.close();
  }
  return file;
}

/**
 * How many rows table `tableId` holds at `snapshot` by the lake's own rows, as DuckLake counts them: its live
 * data files' records less their live delete files' deletes and the rows deleted inline by then, plus its
 * live inlined rows (DuckLake deletes a row once: these never overlap). The model the import is checked
 * against; it shares no code with Strata.
 */
export function lakeCount(file: string, tableId: number, snapshot: number): number {
  const db = new Database(file, { readonly: true });
  try {
    const live = 'begin_snapshot <= @s AND (end_snapshot IS NULL OR end_snapshot > @s)';
    const files = db.prepare(`SELECT coalesce(sum(record_count), 0) AS n FROM ducklake_data_file WHERE table_id = @t AND ${live}`).get({ t: tableId, s: snapshot }) as { n: number };
    const deletes = db.prepare(`SELECT coalesce(sum(delete_count), 0) AS n FROM ducklake_delete_file WHERE table_id = @t AND ${live}`).get({ t: tableId, s: snapshot }) as { n: number };
    let inlined = 0;
    for (const { table_name } of db.prepare('SELECT table_name FROM ducklake_inlined_data_tables WHERE table_id = ?').all(tableId) as { table_name: string }[]) {
      inlined += (db.prepare(`SELECT count(*) AS n FROM "${table_name}" WHERE ${live}`).get({ s: snapshot }) as { n: number }).n;
    }
    const inlinedDeletes = db.prepare('SELECT name FROM sqlite_master WHERE name = ?').get(`ducklake_inlined_delete_${tableId}`) as { name: string } | undefined;
    const deletedInline = inlinedDeletes === undefined ? 0 : (db.prepare(`SELECT count(*) AS n FROM "${inlinedDeletes.name}" i JOIN ducklake_data_file f ON f.data_file_id = i.file_id WHERE i.begin_snapshot <= @s AND f.begin_snapshot <= @s AND (f.end_snapshot IS NULL OR f.end_snapshot > @s)`).get({ s: snapshot }) as { n: number }).n;
    return files.n - deletes.n + inlined - deletedInline;
  } finally {
    db.close();
  }
}

/** The positions each of the lake's delete files live at its newest snapshot holds, by data file, read by DuckDB. */
async function deletedPositions(lake: ExportedLake): Promise<Map<number, Set<number>>> {
  const db = new Database(lake.file, { readonly: true });
  const files = db.prepare('SELECT data_file_id AS id, path FROM ducklake_delete_file WHERE end_snapshot IS NULL').all() as { id: number; path: string }[];
  db.close();
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const duck = await DuckDBInstance.create(':memory:');
  const c = await duck.connect();
  try {
    const out = new Map<number, Set<number>>();
    for (const f of files) {
      const rows = (await c.runAndReadAll(`SELECT pos FROM read_parquet('${path.join(lake.dataDir, f.path)}')`)).getRowObjectsJS() as { pos: bigint }[];
      out.set(f.id, new Set(rows.map((r) => Number(r.pos))));
    }
    return out;
  } finally {
    c.closeSync();
    duck.closeSync();
  }
}

/** A positional delete file of the lake's data file `dataFileId` holding `positions`, written by DuckDB into the lake's data path. */
async function deleteFileOf(lake: ExportedLake, dataFileId: number, positions: number[], name: string): Promise<{ path: string; size: number }> {
  const db = new Database(lake.file, { readonly: true });
  const data = db.prepare('SELECT path FROM ducklake_data_file WHERE data_file_id = ?').get(dataFileId) as { path: string };
  db.close();
  const rel = `sales/orders/${name}`;
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const duck = await DuckDBInstance.create(':memory:');
  const c = await duck.connect();
  try {
    await c.run(`COPY (SELECT '${data.path}' AS file_path, pos::BIGINT AS pos FROM (VALUES ${positions.map((p) => `(${p})`).join(', ')}) t(pos)) TO '${path.join(lake.dataDir, rel)}' (FORMAT parquet)`);
  } finally {
    c.closeSync();
    duck.closeSync();
  }
  return { path: rel, size: statSync(path.join(lake.dataDir, rel)).size };
}
