// A table's history kept as plain DuckDB tables, for differential tests of what the catalog answers about it.
// Two models, each built without the code under test:
// - the rows: every statement a test runs through the catalog is run again on a plain DuckDB table (`apply`),
//   which is kept as each snapshot left it (`keep`) and put back as a restore does (`restore`);
// - the row ids: the table as each snapshot has it, copied (`copy`) row by row from its Parquet files —
//   those the snapshot's reader lists, read by DuckDB by column name past the catalog's SQL, each row under
//   the id its file carries (_ducklake_internal_row_id) or row_id_start + its position.
// The changes between two snapshots are then two copies compared by row id with SQL (`changes`), as DuckLake's
// table_changes defines them: a row only in the newer copy is an insert, only in the older a delete, in both
// with other values an update (its preimage and postimage), in both with the same values no change.
// One table, one schema: its columns are the ones it had when the model was opened.
import * as path from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { Catalog } from '../../src/index.js';

export type ModelRow = Record<string, unknown>;

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

export class TableModel {
  private constructor(
    private readonly db: DuckDBInstance,
    private readonly k: DuckDBConnection,
    private readonly c: Catalog,
    private readonly storeRoot: string,
    private readonly schema: string,
    private readonly table: string,
    /** The table's columns, in order, as `name TYPE`. */
    private readonly columns: { name: string; type: string }[],
  ) {}

  /**
   * A model of `schema.table` of `c` (a directory store whose root is `storeRoot`) from its newest snapshot on:
   * the plain table starts with the rows of that snapshot's copy, kept as that snapshot's.
   */
  static async open(c: Catalog, storeRoot: string, schema: string, table: string): Promise<TableModel> {
    const db = await DuckDBInstance.create(':memory:');
    const k = await db.connect();
    const now = await c.sql(`SELECT * FROM ${q(schema)}.${q(table)} LIMIT 0`);
    const m = new TableModel(db, k, c, storeRoot, schema, table, now.columns);
    const head = (await c.snapshots()).at(-1)!.id;
    await m.copy(head);
    await m.run(`CREATE SCHEMA IF NOT EXISTS ${q(schema)}`);
    await m.run(`CREATE TABLE ${m.plain} AS SELECT ${m.names} FROM ${q(`copy_${head}`)}`);
    await m.keep(head);
    return m;
  }

  private get plain(): string {
    return `${q(this.schema)}.${q(this.table)}`;
  }

  private async run(sql: string): Promise<ModelRow[]> {
    return (await this.k.runAndReadAll(sql)).getRowObjectsJS();
  }

  /** Runs a statement the test ran through the catalog on the plain table too (it names the table as the catalog does). */
  async apply(sql: string): Promise<void> {
    await this.run(sql);
  }

  /** The plain table as snapshot `s` left it (call after each commit). */
  async keep(s: number): Promise<void> {
    await this.run(`CREATE OR REPLACE TABLE ${q(`kept_${s}`)} AS SELECT * FROM ${this.plain}`);
  }

  /** The plain table back as snapshot `s` left it: what a restore of the table to `s` does. */
  async restore(s: number): Promise<void> {
    await this.run(`DELETE FROM ${this.plain}`);
    await this.run(`INSERT INTO ${this.plain} SELECT * FROM ${q(`kept_${s}`)}`);
  }

  /** The plain table's rows as snapshot `s` left them, in the order of its columns. */
  kept(s: number): Promise<ModelRow[]> {
    return this.run(`SELECT * FROM ${q(`kept_${s}`)} ORDER BY ALL`);
  }

  /** The table as snapshot `s` has it, copied with each row's id from its files (empty where the table is not). */
  async copy(s: number): Promise<void> {
    const r = await this.c.reader({ snapshot: s });
    const reads: string[] = [];
    try {
      const exists = (await r.tables(this.schema).catch(() => [])).some((t) => t.name === this.table);
      if (exists) {
        const deletes = await r.deleteFiles(this.schema, this.table);
        for (const f of await r.dataFiles(this.schema, this.table)) {
          const local = literal(path.join(this.storeRoot, this.c.dataPath, f.path));
          const names = (await this.run(`SELECT name FROM parquet_schema(${local})`)).map((x) => x.name);
          const rowid = names.includes('_ducklake_internal_row_id') ? '_ducklake_internal_row_id' : `${f.rowIdStart} + file_row_number`;
          const del = deletes.find((d) => d.dataFileId === f.id);
          const gone = del ? ` WHERE file_row_number NOT IN (SELECT pos FROM read_parquet(${literal(path.join(this.storeRoot, this.c.dataPath, del.path))}))` : '';
          reads.push(`SELECT (${rowid})::BIGINT AS rowid, ${this.names} FROM read_parquet(${local}, file_row_number = true)${gone}`);
        }
      }
    } finally {
      await r.close();
    }
    const none = `SELECT NULL::BIGINT AS rowid, ${this.columns.map((col) => `NULL::${col.type} AS ${q(col.name)}`).join(', ')} WHERE false`;
    await this.run(`CREATE OR REPLACE TABLE ${q(`copy_${s}`)} AS ${[none, ...reads].join(' UNION ALL ')}`);
  }

  /** A copy's rows without their ids, in the order of its columns: what the plain table should hold. */
  copied(s: number): Promise<ModelRow[]> {
    return this.run(`SELECT ${this.names} FROM ${q(`copy_${s}`)} ORDER BY ALL`);
  }

  /** Every change of snapshots [from, to] as DuckLake's table_changes lists them, from the copies at from - 1 … to. */
  async changes(from: number, to: number): Promise<ModelRow[]> {
    const out: ModelRow[] = [];
    for (let s = from; s <= to; s++) {
      const [was, now] = [q(`copy_${s - 1}`), q(`copy_${s}`)];
      const row = (alias: string) => `ROW(${this.columns.map((col) => `${alias}.${q(col.name)}`).join(', ')})`;
      const cols = (alias: string) => this.columns.map((col) => `${alias}.${q(col.name)}`).join(', ');
      const rows = await this.run(
        `SELECT * FROM (SELECT ${s}::BIGINT AS snapshot_id, o.rowid, CASE WHEN n.rowid IS NULL THEN 'delete' ELSE 'update_preimage' END AS change_type, ${cols('o')} ` +
          `FROM ${was} o LEFT JOIN ${now} n USING (rowid) WHERE n.rowid IS NULL OR ${row('o')} IS DISTINCT FROM ${row('n')} ` +
          `UNION ALL SELECT ${s}::BIGINT, n.rowid, CASE WHEN o.rowid IS NULL THEN 'insert' ELSE 'update_postimage' END, ${cols('n')} ` +
          `FROM ${now} n LEFT JOIN ${was} o USING (rowid) WHERE o.rowid IS NULL OR ${row('o')} IS DISTINCT FROM ${row('n')}) ` +
          `ORDER BY rowid, change_type IN ('insert', 'update_postimage')`,
      );
      out.push(...rows);
    }
    return out;
  }

  private get names(): string {
    return this.columns.map((col) => q(col.name)).join(', ');
  }

  close(): void {
    this.k.closeSync();
    this.db.closeSync();
  }
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
