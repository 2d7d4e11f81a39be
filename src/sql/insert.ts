// INSERT INTO … VALUES / SELECT through catalog.sql. DuckDB plans the statement over a mirror of the head
// (mirror.ts): its plan names the target table and every table the rows are read from. The statement then
// runs verbatim on a scratch database holding the target as an empty DuckDB table with the catalog's columns
// (so DuckDB applies the column list, casts, defaults and NOT NULLs) and each table read as a view of its
// files at the head; the rows it inserted are written and committed as data files of the target.
import { randomBytes } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { options } from '../arguments.js';
import { StrataError } from '../errors.js';
import type { Reader } from '../read/reader.js';
import { run, withProgress } from './engine.js';
import type { Held } from './local-files.js';
import { createTable, createViews, type PlanNode } from './mirror.js';
import { columnsOf, type PlaneContext, scanAt, type SqlOptions, type SqlResult } from './query.js';
import { ident } from './sql-text.js';
import { exactValues } from './values.js';
import { writeRows } from './write-files.js';

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

const MiB = 2 ** 20;

interface Named {
  schema: string;
  table: string;
}

function nodes(plan: PlanNode, type: string, out: PlanNode[] = []): PlanNode[] {
  if (plan.type === type) out.push(plan);
  for (const child of plan.children) nodes(child, type, out);
  return out;
}

/** The tables the plan scans, each once (DuckDB has expanded the views already). */
function tablesRead(plan: PlanNode): Named[] {
  const seen = new Map<string, Named>();
  for (const get of nodes(plan, 'LOGICAL_GET')) {
    const data = get.function_data as { schema?: string; table?: string } | undefined;
    if (get.name !== 'seq_scan' || data?.schema === undefined || data.table === undefined) continue;
    seen.set(JSON.stringify([data.schema, data.table]), { schema: data.schema, table: data.table });
  }
  return [...seen.values()];
}

/** Runs a statement other than SELECT: an INSERT, committed as one snapshot; any other kind is refused. */
export async function write(ctx: PlaneContext, text: string, given: SqlOptions | undefined): Promise<SqlResult> {
  ctx.writable();
  const { at, onProgress } = options('sql()', given, ['at', 'onProgress']);
  if (at !== undefined) throw invalid('sql() at picks the snapshot a SELECT reads; an INSERT writes at the head — leave at out (AT clauses go on a SELECT)');
  if (onProgress !== undefined && typeof onProgress !== 'function') throw invalid('sql() onProgress must be a function (percent) => void');
  const r = await ctx.reader();
  const held: Held[] = [];
  try {
    const plan = await ctx.mirror.plan(r, text).catch(async (e: unknown) => {
      throw await planError(e, r);
    });
    const [insert] = nodes(plan, 'LOGICAL_INSERT');
    if (insert === undefined) {
      throw invalid(`sql() runs SELECT and INSERT statements; this one is ${plan.type.replace(/^LOGICAL_/, '')} — UPDATE, DELETE and DDL go through catalog.transaction for now`);
    }
    const info = insert.table_info as { schema: string; table: string };
    const target = { schema: info.schema, table: info.table };
    return await ctx.engine.withConnection((c) => insertInto(ctx, c, r, text, target, tablesRead(plan), onProgress, held));
  } finally {
    for (const h of held) h.release();
    await r.close();
  }
}

/** DuckDB's binder errors over the mirror, said in the catalog's terms where DuckDB's would mislead. */
async function planError(e: unknown, r: Reader): Promise<unknown> {
  if (!(e instanceof StrataError)) return e;
  if (/does not support time travel/.test(e.message)) {
    return invalid("an INSERT's rows are read at the head: AT (VERSION | TIMESTAMP) on the tables it reads is not supported; SELECT the old rows with catalog.sql and load them");
  }
  const missing = /Table with name (.+?) does not exist/.exec(e.message);
  if (missing) {
    const names: string[] = [];
    for (const s of await r.schemas()) for (const t of await r.tables(s.name)) names.push(`${s.name}.${t.name}`);
    const shown = names.length > 20 ? `${names.slice(0, 20).join(', ')}, … (${names.length} in all)` : names.join(', ') || 'none';
    return new StrataError('NOT_FOUND', `the statement names a table ${missing[1]} that the head (snapshot ${r.snapshot.id}) does not have; its tables: ${shown}`, { cause: e });
  }
  return e;
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
