// INSERT INTO … VALUES / SELECT through catalog.sql. DuckDB plans the statement over a mirror of the head
// (mirror.ts): its plan names the target table and every table the rows are read from. The statement then
// runs verbatim on a scratch database holding the target as an empty DuckDB table with the catalog's columns
// (so DuckDB applies the column list, casts, defaults and NOT NULLs) and each table read as a view of its
// files at the head; the rows it inserted are written and committed as data files of the target.
import { randomBytes } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Reader } from '../read/reader.js';
import { run, withProgress } from './engine.js';
import type { Held } from './local-files.js';
import { createTable, createViews, type Named, type PlanNode, tablesRead } from './mirror.js';
import { columnsOf, type PlaneContext, scanAt, type SqlOptions, type SqlResult } from './query.js';
import { ident } from './sql-text.js';
import { exactValues } from './values.js';
import { writeRows } from './write-files.js';

const MiB = 2 ** 20;

/** Runs an INSERT the mirror planned (`inserting` its LOGICAL_INSERT node): the new rows, one commit. */
export async function insert(ctx: PlaneContext, r: Reader, text: string, plan: PlanNode, inserting: PlanNode, onProgress: SqlOptions['onProgress'], held: Held[]): Promise<SqlResult> {
  const info = inserting.table_info as Named;
  return ctx.engine.withConnection((c) => insertInto(ctx, c, r, text, { schema: info.schema, table: info.table }, tablesRead(plan), onProgress, held));
}

async function insertInto(ctx: PlaneContext, c: DuckDBConnection, r: Reader, text: string, target: Named, read: Named[], onProgress: SqlOptions['onProgress'], held: Held[]): Promise<SqlResult> {
  const database = `strata_insert_${randomBytes(6).toString('hex')}`;
  const name = (t: Named) => `${ident(database)}.${ident(t.schema)}.${ident(t.table)}`;
  const files = { listed: 0, skipped: 0 };
  await run(() => c.run(`ATTACH ':memory:' AS ${ident(database)}`));
  try {
    await run(() => c.run(`USE ${ident(database)}`));
    for (const schema of new Set([target, ...read].map((t) => t.schema))) await run(() => c.run(`CREATE SCHEMA IF NOT EXISTS ${ident(database)}.${ident(schema)}`));
    const table = await r.table(target.schema, target.table);
    await run(() => c.run(createTable(name(target), table)));
    // A statement reading its own target (INSERT INTO t SELECT … FROM t) reads the rows already there: they
    // go into the scratch table first, and only rows past them are new.
    let existing = 0;
    for (const t of read) {
      const scan = await scanAt(ctx, r, { ...t, at: undefined, filter: undefined }, held, files);
      if (t.schema === target.schema && t.table === target.table) {
        await run(() => c.run(`INSERT INTO ${name(t)} ${scan}`));
        existing = Number((await run(() => c.runAndReadAll(`SELECT count(*) FROM ${name(t)}`))).getRows()[0]![0]);
      } else await run(() => c.run(`CREATE VIEW ${name(t)} AS ${scan}`));
    }
    await createViews(c, r, database);
    const result = await withProgress(c, onProgress, () => c.runAndReadAll(text));
    const columns = table.columns.map((col) => ident(col.name)).join(', ');
    const written = await writeRows(
      ctx,
      c,
      { ...target, info: table, targetFileSize: 128 * MiB, onProgress: undefined, message: `INSERT INTO ${target.schema}.${target.table}` },
      `SELECT ${columns} FROM ${name(target)}${existing > 0 ? ` WHERE rowid >= ${existing}` : ''}`,
    );
    return {
      rows: result.convertRowObjects(await exactValues()) as Record<string, unknown>[],
      columns: columnsOf(result),
      snapshot: written.snapshot ?? r.snapshot.id,
      files,
    };
  } finally {
    await c.run(`USE memory; DETACH DATABASE IF EXISTS ${ident(database)}`).catch(() => undefined);
  }
}
