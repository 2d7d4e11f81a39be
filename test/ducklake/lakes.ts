// DuckLake lakes the import tests start from: one exported from a real history of real Parquet (renames, an
// added column, drops, deletes, an update, a restore, a view, tags), copied and tampered with by plain SQL on
// the SQLite file, as anyone could; and what an import leaves behind where it was told to build.
import { existsSync, readdirSync } from 'node:fs';
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
