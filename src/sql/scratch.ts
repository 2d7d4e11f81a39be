// A statement's own in-memory database, attached for it and detached after: the target of a write as a real
// DuckDB table, each other table it reads a view of its scan at the head, the catalog's views over them.
// The statement then runs verbatim there, names resolving as they did in the mirror.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ReadState } from '../read/read-state.js';
import { run } from './engine.js';
import type { StatementFiles } from './statement-files.js';
import { createTable, createViews, type Named, sameTable } from './mirror.js';
import type { ScalarSql } from './statement.js';
import { noFiles, type PlaneContext, scanAt } from './query.js';
import { ident, literal } from './sql-text.js';
import { randomHex } from '../random.js';

export class Scratch {
  /** Data files the scans listed and skipped. */
  readonly files = noFiles();
  /** The databases attached for the statement (rows it read first), detached with its own. */
  private readonly attached: string[] = [];

  private constructor(
    readonly c: DuckDBConnection,
    readonly database: string,
  ) {}

  /** The qualified name of a catalog table, or of a working table of the statement's own (`name` alone). */
  name(t: Named | string): string {
    return typeof t === 'string' ? `${ident(this.database)}.main.${ident(t)}` : `${ident(this.database)}.${ident(t.schema)}.${ident(t.table)}`;
  }

  run(sql: string): Promise<unknown> {
    return run(() => this.c.run(sql));
  }

  async count(sql: string): Promise<number> {
    return Number((await run(() => this.c.runAndReadAll(sql))).getRows()[0]![0]);
  }

  /**
   * The schemas of the catalog, each of `tables` but `target` a view of its scan at `r`'s snapshot (files held in
   * `held`), and the host rows it loaded: what the statement reads. The caller makes the target.
   */
  async reading(ctx: PlaneContext, r: ReadState, target: Named, tables: readonly Named[], held: StatementFiles): Promise<void> {
    // Host rows the statement loaded first and tables it reads at a snapshot of their own, under the names its text now reads them by (write.ts).
    for (const [alias, file] of ctx.attached ?? []) {
      await this.run(`ATTACH ${literal(file)} AS ${ident(alias)} (READ_ONLY)`);
      this.attached.push(alias);
    }
    for (const [name, select] of ctx.loaded ?? []) await this.run(`CREATE VIEW ${this.name(name)} AS ${select}`);
    // Every schema, so that a catalog view of a schema the statement reads no table of binds too.
    for (const schema of await r.schemas()) await this.run(`CREATE SCHEMA IF NOT EXISTS ${ident(this.database)}.${ident(schema.name)}`);
    for (const t of tables) {
      if (sameTable(t, target)) continue;
      await this.run(`CREATE VIEW ${this.name(t)} AS ${(await scanAt(ctx, r, { ...t, at: undefined, filter: undefined }, held, this.files)).sql}`);
    }
  }

  /**
   * Catalog table `t` as a real table of this database holding its rows at `r`'s snapshot (files held in
   * `held`): what a statement writing a table it also reads sees of it. Returns how many rows it holds.
   */
  async holding(ctx: PlaneContext, r: ReadState, t: Named, held: StatementFiles): Promise<number> {
    await this.run(createTable(this.name(t), await r.table(t.schema, t.table)));
    await this.run(`INSERT INTO ${this.name(t)} ${(await scanAt(ctx, r, { ...t, at: undefined, filter: undefined }, held, this.files)).sql}`);
    return this.count(`SELECT count(*) FROM ${this.name(t)}`);
  }

  /** Creates the catalog's views of `r` (after the tables they read). */
  views(r: ReadState, run: ScalarSql): Promise<void> {
    return createViews(this.c, r, this.database, run);
  }

  static async with<T>(c: DuckDBConnection, fn: (s: Scratch) => Promise<T>): Promise<T> {
    const s = new Scratch(c, `strata_write_${randomHex(6)}`);
    await s.run(`ATTACH ':memory:' AS ${ident(s.database)}`);
    try {
      await s.run(`USE ${ident(s.database)}`);
      return await fn(s);
    } finally {
      await c.run(`USE memory; DETACH DATABASE IF EXISTS ${ident(s.database)}`).catch(() => undefined);
      for (const alias of s.attached) await c.run(`DETACH DATABASE IF EXISTS ${ident(alias)}`).catch(() => undefined);
    }
  }
}
