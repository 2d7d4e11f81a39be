// CREATE [OR REPLACE] TABLE … AS SELECT (and its IF NOT EXISTS, column aliases and WITH NO DATA) through
// catalog.sql, one commit. The mirror's plan gives the new table's columns as the query types them. The
// statement then runs verbatim on a scratch database where each table it reads is a view of its files at the
// head — a table it replaces and reads (CREATE OR REPLACE TABLE t AS SELECT … FROM t) a real table of its rows,
// which DuckDB reads before it replaces it — and one commit drops the old table (OR REPLACE), creates the new
// one and registers the rows DuckDB put in it as its data files, with its column ids as field ids.
import type { DuckDBConnection } from '@duckdb/node-api';
import { isStrataError, StrataError } from '../errors.js';
import type { ReadState } from '../read/read-state.js';
import { ignore, tableColumns, type TableInfoNode } from './ddl.js';
import { withProgress } from './engine.js';
import { type Named, type PlanNode, sameTable, tablesRead } from './mirror.js';
import type { PlaneContext, SqlOptions, SqlResult } from './query.js';
import { Scratch } from './scratch.js';
import { ident } from './sql-text.js';
import type { StatementFiles } from './statement-files.js';
import type { Transaction } from '../txn/transaction.js';
import { rowsOf } from './values.js';
import { DEFAULT_TARGET_FILE_SIZE, writeDataFiles } from './write-files.js';

/** Runs a CREATE TABLE … AS the mirror planned (`plan` its LOGICAL_CREATE_TABLE, whose child is the query). */
export async function createTableAs(ctx: PlaneContext, r: ReadState, text: string, plan: PlanNode, onProgress: SqlOptions['onProgress'], held: StatementFiles): Promise<SqlResult> {
  const info = plan.info as unknown as TableInfoNode;
  const target: Named = { schema: info.schema === '' ? 'main' : info.schema, table: info.table };
  const columns = tableColumns(info);
  const replace = info.on_conflict === 'REPLACE_ON_CONFLICT';
  if (!replace && (await exists(r, target))) {
    if (info.on_conflict === 'IGNORE_ON_CONFLICT') return { rows: [], columns: [], snapshot: r.snapshot.id, files: { listed: 0, skipped: 0 } };
    throw new StrataError(
      'ALREADY_EXISTS',
      `table ${target.schema}.${target.table} already exists at snapshot ${r.snapshot.id}; nothing was written — CREATE OR REPLACE TABLE … AS replaces it, CREATE TABLE IF NOT EXISTS … AS leaves it as it is`,
    );
  }
  return ctx.engine.withConnection((c) =>
    Scratch.with(c, async (s) => {
      const read = tablesRead(plan);
      await s.reading(ctx, r, target, read, held);
      if (read.some((t) => sameTable(t, target))) await s.holding(ctx, r, target, held);
      await s.views(r, (q, arg) => ctx.engine.textFunction(q, arg));
      const result = await withProgress(c, onProgress, () => c.runAndReadAll(text, ctx.params));
      const { snapshot } = await ctx.transaction(
        async (tx) => {
          if (replace) await ignore(tx.dropTable(target.schema, target.table), 'NOT_FOUND');
          await tx.createTable(target.schema, target.table, columns);
          await register(ctx, c, tx, target, `SELECT ${columns.map((col) => ident(col.name)).join(', ')} FROM ${s.name(target)}`, text);
        },
        { message: text.trim().slice(0, 200) },
      );
      return { ...(await rowsOf(result)), snapshot: snapshot ?? r.snapshot.id, files: s.files };
    }),
  );
}

/** Writes the rows of `select` as data files of the table just created in `tx`, and registers them there. */
async function register(ctx: PlaneContext, c: DuckDBConnection, tx: Transaction, target: Named, select: string, text: string): Promise<void> {
  const info = await tx.reads().table(target.schema, target.table);
  const specs = await writeDataFiles(ctx, c, { ...target, info, targetFileSize: DEFAULT_TARGET_FILE_SIZE, onProgress: undefined, message: text }, select);
  if (specs.length > 0) await tx.addDataFiles(target.schema, target.table, specs);
}

async function exists(r: ReadState, t: Named): Promise<boolean> {
  try {
    await r.table(t.schema, t.table);
    return true;
  } catch (e) {
    if (isStrataError(e, 'NOT_FOUND')) return false;
    throw e;
  }
}
