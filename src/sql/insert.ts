// INSERT INTO … VALUES / SELECT through catalog.sql. DuckDB plans the statement over a mirror of the head
// (mirror.ts): its plan names the target table and every table the rows are read from. The statement then
// runs verbatim on a scratch database holding the target as an empty DuckDB table with the catalog's columns
// (so DuckDB applies the column list, casts, defaults and NOT NULLs) and each table read as a view of its
// files at the head; the rows it inserted are written and committed as data files of the target.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ReadState } from '../read/read-state.js';
import { withProgress } from './engine.js';
import type { StatementFiles } from './statement-files.js';
import { createTable, type Named, type PlanNode, sameTable, tablesRead } from './mirror.js';
import type { PlaneContext, SqlOptions, SqlResult } from './query.js';
import { Scratch } from './scratch.js';
import { ident } from './sql-text.js';
import { rowsOf } from './values.js';
import { DEFAULT_TARGET_FILE_SIZE, writeRows } from './write-files.js';

/** Runs an INSERT the mirror planned (`inserting` its LOGICAL_INSERT node): the new rows, one commit. */
export async function insert(ctx: PlaneContext, r: ReadState, text: string, plan: PlanNode, inserting: PlanNode, onProgress: SqlOptions['onProgress'], held: StatementFiles): Promise<SqlResult> {
  const info = inserting.table_info as Named;
  return ctx.engine.withConnection((c) => insertInto(ctx, c, r, text, { schema: info.schema, table: info.table }, tablesRead(plan), onProgress, held));
}

async function insertInto(ctx: PlaneContext, c: DuckDBConnection, r: ReadState, text: string, target: Named, read: Named[], onProgress: SqlOptions['onProgress'], held: StatementFiles): Promise<SqlResult> {
  return Scratch.with(c, async (s) => {
    await s.reading(ctx, r, target, read, held);
    const table = await r.table(target.schema, target.table);
    // A statement reading its own target (INSERT INTO t SELECT … FROM t) reads the rows already there: they
    // go into the scratch table first, and only rows past them are new.
    let existing = 0;
    if (read.some((t) => sameTable(t, target))) existing = await s.holding(ctx, r, target, held);
    else await s.run(createTable(s.name(target), table));
    await s.views(r, (q, arg) => ctx.engine.textFunction(q, arg));
    const result = await withProgress(c, onProgress, () => c.runAndReadAll(text, ctx.params));
    const columns = table.columns.map((col) => ident(col.name)).join(', ');
    const written = await writeRows(
      ctx,
      c,
      { ...target, info: table, targetFileSize: DEFAULT_TARGET_FILE_SIZE, onProgress: undefined, message: `INSERT INTO ${target.schema}.${target.table}` },
      `SELECT ${columns} FROM ${s.name(target)}${existing > 0 ? ` WHERE rowid >= ${existing}` : ''}`,
    );
    return {
      ...(await rowsOf(result)),
      snapshot: written.snapshot ?? r.snapshot.id,
      files: s.files,
    };
  });
}
