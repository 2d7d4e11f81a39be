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
import { noFiles, type PlaneContext, type SqlOptions, type SqlResult } from './query.js';
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
  const found = await existing(r, target);
  const name = `${target.schema}.${target.table}`;
  if (found !== undefined && info.on_conflict === 'IGNORE_ON_CONFLICT') return { rows: [], columns: [], snapshot: r.snapshot.id, files: noFiles() };
  if (found === 'view') {
    throw new StrataError('ALREADY_EXISTS', `${name} is a view at snapshot ${r.snapshot.id}; nothing was written — CREATE … TABLE AS makes a table: DROP VIEW ${name} first, or name the table otherwise`);
  }
  if (found === 'table' && !replace) {
    throw new StrataError(
      'ALREADY_EXISTS',
      `table ${name} already exists at snapshot ${r.snapshot.id}; nothing was written — CREATE OR REPLACE TABLE … AS replaces it, CREATE TABLE IF NOT EXISTS … AS leaves it as it is`,
    );
  }
  return ctx.engine.withConnection((c) =>
    Scratch.with(c, async (s) => {
      const read = tablesRead(plan);
      const readsItself = read.some((t) => sameTable(t, target));
      await s.reading(ctx, r, target, read, held);
      if (readsItself) await s.holding(ctx, r, target, held);
      await s.views(r, (q, arg) => ctx.engine.textFunction(q, arg));
      const result = await withProgress(c, onProgress, () => c.runAndReadAll(text, ctx.params));
      const { snapshot } = await ctx.transaction(
        async (tx) => {
          if (readsItself) await unchangedSince(r, tx, target);
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

/**
 * A table replaced by rows read from itself is replaced only if no commit changed it after they were read: the
 * drop would otherwise take another writer's rows with it, which no rule of DuckLake's calls a conflict. Read
 * through the transaction, so a commit that lands between this look and the commit is held against it too.
 */
async function unchangedSince(r: ReadState, tx: Transaction, t: Named): Promise<void> {
  const state = async (s: ReadState) =>
    JSON.stringify([(await s.table(t.schema, t.table)).columns, (await s.dataFiles(t.schema, t.table)).map((f) => f.id), (await s.deleteFiles(t.schema, t.table)).map((d) => d.id)]);
  const now = tx.reads();
  if ((await state(r)) !== (await state(now))) {
    throw new StrataError(
      'CONFLICT',
      `${t.schema}.${t.table} changed after snapshot ${r.snapshot.id}, which this CREATE OR REPLACE TABLE … AS read it at (snapshot ${now.snapshot.id} has other files or columns); nothing was committed — run the statement again`,
    );
  }
}

/** What holds the target's name at `r`: a table, a view, or nothing (undefined). */
async function existing(r: ReadState, t: Named): Promise<'table' | 'view' | undefined> {
  if ((await r.viewNamed(t.schema, t.table)) !== undefined) return 'view';
  try {
    await r.table(t.schema, t.table);
    return 'table';
  } catch (e) {
    if (isStrataError(e, 'NOT_FOUND')) return undefined;
    throw e;
  }
}
