// A statement other than SELECT through catalog.sql: DuckDB plans it over the mirror of the head (decision
// 0011) and the plan says what it is — an INSERT (insert.ts), UPDATE (update.ts), DELETE (delete.ts) or DDL
// (ddl.ts), each one commit; anything else is refused naming what runs.
import { StrataError } from '../errors.js';
import type { ReadState } from '../read/read-state.js';
import { ddlOperations, runDdl } from './ddl.js';
import { deleteRows } from './delete.js';
import { insert } from './insert.js';
import { updateRows } from './update.js';
import { StatementFiles } from './statement-files.js';
import { nodesOf } from './mirror.js';
import { authorship, committing, type PlaneContext, type SqlOptions, type SqlResult, sqlOptions } from './query.js';

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

export async function write(plane: PlaneContext, text: string, given: SqlOptions | undefined): Promise<SqlResult> {
  plane.writable();
  const { at, onProgress, author, message } = sqlOptions(given);
  if (at !== undefined) throw invalid('sql() at picks the snapshot a SELECT reads; a statement that writes writes at the head — leave at out (AT clauses go on a SELECT)');
  if (plane.pending === true && (author !== undefined || message !== undefined)) {
    throw invalid('tx.sql() commits with its transaction: give author and message to catalog.transaction(fn, { author, message })');
  }
  const ctx = committing(plane, authorship({ author, message }));
  const r = await ctx.reader();
  const held = new StatementFiles(ctx.files, 'before-read');
  try {
    const plan = await ctx.mirror.plan(r, text).catch(async (e: unknown) => {
      throw await planError(e, r);
    });
    const [inserting] = nodesOf(plan, 'LOGICAL_INSERT');
    if (inserting !== undefined) return await insert(ctx, r, text, plan, inserting, onProgress, held);
    const [deleting] = nodesOf(plan, 'LOGICAL_DELETE');
    if (deleting !== undefined) return await deleteRows(ctx, r, text, plan, deleting, onProgress, held);
    const [updating] = nodesOf(plan, 'LOGICAL_UPDATE');
    if (updating !== undefined) return await updateRows(ctx, r, text, plan, updating, onProgress, held);
    const ddl = await ddlOperations(plan, (sql, arg) => ctx.engine.textFunction(sql, arg));
    if (ddl !== undefined) return await runDdl(ctx, text, ddl, r.snapshot.id);
    throw invalid(`sql() runs SELECT, INSERT, UPDATE, DELETE and DDL (CREATE, ALTER, DROP); this statement is ${plan.type.replace(/^LOGICAL_/, '').replaceAll('_', ' ')}`);
  } finally {
    held.release();
    await r.close();
  }
}

/** DuckDB's binder errors over the mirror, said in the catalog's terms where DuckDB's would mislead. */
async function planError(e: unknown, r: ReadState): Promise<unknown> {
  if (!(e instanceof StrataError)) return e;
  if (/does not support time travel/.test(e.message)) {
    return invalid("a statement that writes reads its rows at the head: AT (VERSION | TIMESTAMP) on the tables it reads is not supported; SELECT the old rows with catalog.sql and load them");
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
