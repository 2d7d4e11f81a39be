// A statement other than SELECT through catalog.sql: DuckDB plans it over the mirror of the head (decision
// 0011), on the planner, which reaches no file (decision 0030), and the plan says what it is — an INSERT
// (insert.ts), UPDATE (update.ts), DELETE (delete.ts), MERGE (merge.ts), CREATE TABLE … AS (create-as.ts) or other DDL (ddl.ts), each one commit; anything else is
// refused naming what runs. A host file the statement reads (with hostFiles on) is loaded first, and the
// statement planned and run reading the loaded rows where it called the file's reader; a table an INSERT or a
// CREATE TABLE … AS reads AT a snapshot is read there the same way (past-reads.ts).
import { StrataError } from '../errors.js';
import type { ReadState } from '../read/read-state.js';
import { copy, isCopy } from './copy.js';
import { createTableAs } from './create-as.js';
import { addedColumnsByExample, ddlOperations, runDdl } from './ddl.js';
import { deleteRows } from './delete.js';
import { callAt, loadedScan, loadedShape, loadHostRows } from './host-files.js';
import { afterComments } from './comments.js';
import { endingQuery, pastReads } from './past-reads.js';
import { CATALOG_RELATIONS } from './view-definition.js';
import { insert } from './insert.js';
import { mergeRows } from './merge.js';
import { updateRows } from './update.js';
import { StatementFiles } from './statement-files.js';
import { nodesOf, type PlanFailure, type PlanNode } from './mirror.js';
import { authorship, committing, pastScans, type PlaneContext, selectInto, type SqlOptions, type SqlResult, sqlOptions } from './query.js';
import { ident } from './sql-text.js';
import { charIndex, errorAt } from './statement-errors.js';
import { isHostReader, isPureTableFunction, refusedTableFunction } from './table-functions.js';
import { randomHex } from '../random.js';
import { type BoundParams, boundParams } from './params.js';

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

export async function write(plane: PlaneContext, text: string, given: SqlOptions | undefined): Promise<SqlResult> {
  // DuckDB's planner cannot plan a COPY without reaching its file: its parts run apart (copy.ts).
  if (isCopy(text)) return copy(plane, text, given);
  plane.writable();
  const { at, onProgress, author, message, params } = sqlOptions(given);
  const bound = boundParams(params);
  if (at !== undefined) throw invalid('sql() at picks the snapshot a SELECT reads; a statement that writes writes at the head — leave at out (AT clauses go on a SELECT)');
  if (plane.pending === true && (author !== undefined || message !== undefined)) {
    throw invalid('tx.sql() commits with its transaction: give author and message to catalog.transaction(fn, { author, message })');
  }
  const ctx = committing(plane, authorship({ author, message }));
  const r = await ctx.reads.reader();
  const held = new StatementFiles(ctx.files);
  try {
    const outcome = await planLoading(ctx, r, text, held, params);
    if (outcome === 'split') {
      definitionTakesNoParams(bound);
      return await runDdl(ctx, text, await addedColumnsByExample(ctx.mirror, r, text, (q, arg) => ctx.engine.textFunction(q, arg)), r.snapshot.id);
    }
    const { plan, planned, loaded, attached, queryRead } = outcome;
    for (const get of nodesOf(plan, 'LOGICAL_GET')) {
      const name = String(get.name);
      if (name !== 'seq_scan' && !isPureTableFunction(name)) throw refusedTableFunction(name, `${name}(…)`, ctx.hostFiles !== false);
    }
    // A query read first took the statement's parameters with it: its head (names only) has none.
    const c: PlaneContext = { ...ctx, ...(loaded.size === 0 ? {} : { loaded, attached }), ...(bound === undefined || queryRead ? {} : { params: bound }) };
    if (plan.type === 'LOGICAL_CREATE_TABLE' && plan.children.length > 0) return await createTableAs(c, r, planned, plan, onProgress, held);
    const [inserting] = nodesOf(plan, 'LOGICAL_INSERT');
    if (inserting !== undefined) return await insert(c, r, planned, plan, inserting, onProgress, held);
    const [deleting] = nodesOf(plan, 'LOGICAL_DELETE');
    if (deleting !== undefined) return await deleteRows(c, r, planned, plan, deleting, onProgress, held);
    const [updating] = nodesOf(plan, 'LOGICAL_UPDATE');
    if (updating !== undefined) return await updateRows(c, r, planned, plan, updating, onProgress, held);
    const [merging] = nodesOf(plan, 'LOGICAL_MERGE_INTO');
    if (merging !== undefined) return await mergeRows(c, r, planned, plan, merging, onProgress, held);
    if (loaded.size > 0) throw invalid('host files, and tables AT a snapshot, are read by INSERT, UPDATE, DELETE, MERGE and CREATE TABLE … AS (their rows go into the lake); a view or a table definition reads the catalog only, at the head');
    const ddl = await ddlOperations(plan, (sql, arg) => ctx.engine.textFunction(sql, arg));
    if (ddl !== undefined) {
      definitionTakesNoParams(bound);
      return await runDdl(ctx, text, ddl, r.snapshot.id);
    }
    throw invalid(`sql() runs SELECT, INSERT, UPDATE, DELETE, MERGE and DDL (CREATE, CREATE TABLE … AS, ALTER, DROP); this statement is ${plan.type.replace(/^LOGICAL_/, '').replaceAll('_', ' ')}`);
  } finally {
    held.release();
    await r.close();
  }
}

function definitionTakesNoParams(bound: BoundParams | undefined): void {
  if (bound !== undefined) throw invalid('params bind values of SELECT, INSERT, UPDATE, DELETE, MERGE and CREATE TABLE … AS; a definition (CREATE, ALTER, DROP) takes none: write its values into it');
}

/** At most this many host reader calls in one statement. */
const MAX_HOST_CALLS = 16;

/** What loaded host rows, and tables read AT a snapshot, are read under in a statement: names no caller writes (random per process). */
const HOST_PLACEHOLDER = `__strata_host_${randomHex(6)}_`;
const PAST_PLACEHOLDER = `__strata_past_${randomHex(6)}_`;

/**
 * The plan of `text` over the mirror of `r`. DuckDB's planner reaches no file, so a file reader in the
 * statement fails to bind, where it starts: with host files on, its rows are loaded, the call replaced by a
 * name the planner knows as an empty table of their shape (and the executor as a view of them), and the
 * statement planned again; with them off, the statement is refused naming the call. `split`: an ADD COLUMN
 * whose default is not a bare literal, which DuckDB's transformer splits into several statements it cannot
 * plan (ddl.ts runs it by example).
 */
async function planLoading(
  ctx: PlaneContext,
  r: ReadState,
  text: string,
  held: StatementFiles,
  params: SqlOptions['params'],
): Promise<{ plan: PlanNode; planned: string; loaded: Map<string, string>; attached: Map<string, string>; queryRead: boolean } | 'split'> {
  let planned = text;
  const loaded = new Map<string, string>();
  const attached = new Map<string, string>();
  const shapes: string[] = [];
  let tried = false;
  let queryRead = false;
  /** Each replacement made, in order: where, and how long the text replaced and its replacement were. */
  const edits: { at: number; removed: number; added: number }[] = [];
  const original = (at: number) => edits.reduceRight((p, e) => (p >= e.at + e.added ? p - e.added + e.removed : p >= e.at ? e.at : p), at);
  const code = text.slice(afterComments(text));
  if (/^CREATE\b/i.test(code)) {
    // Refused when made, not when first read: a view is expanded inside the queries that read it.
    const ending = await endingQuery(code, (sql, arg) => ctx.engine.textFunction(sql, arg));
    if (ending?.view === true && ending.statement.readsCatalog()) {
      throw invalid(`a view ${CATALOG_RELATIONS}`);
    }
  }
  for (;;) {
    const outcome = await ctx.mirror.plan(r, planned, shapes);
    // A query that reads the catalog's own relations (snapshots(), table_changes(), information_schema, …),
    // which the mirror has not or has as DuckDB's own: its rows are read first, through the read path at the
    // head, and the statement planned over them as over a host file's loaded rows.
    const mirrorless = !outcome.ok || nodesOf(outcome.plan, 'LOGICAL_GET').some((g) => String(g.name) !== 'seq_scan' && !isPureTableFunction(String(g.name)));
    if (mirrorless && !tried) {
      tried = true;
      const ending = await endingQuery(planned, (sql, arg) => ctx.engine.textFunction(sql, arg));
      if (ending?.statement.readsCatalog() === true && ending.replaces) {
        throw invalid("CREATE OR REPLACE TABLE … AS a query of the catalog's own relations is not run: the table it replaces is read apart from them, and a change to it in between would go unseen; CREATE TABLE a new one from the query, then DROP the old one and RENAME the new");
      }
      if (ending?.statement.readsCatalog() === true) {
        const { name, alias, file, columns } = await readQuery(ctx, ending.query, params);
        loaded.set(name, `SELECT * FROM ${ident(alias)}.main.rows`);
        attached.set(alias, file);
        shapes.push(loadedShape(name, { columns }));
        const replacement = `SELECT * FROM ${ident(name)}`;
        planned = `${planned.slice(0, ending.from)}${replacement}`;
        edits.push({ at: ending.from, removed: ending.query.length, added: replacement.length });
        queryRead = true;
        continue;
      }
    }
    if (outcome.ok) return { plan: outcome.plan, planned, loaded, attached, queryRead };
    const { failure } = outcome;
    if (loaded.size === 0 && /Cannot plan statement of type MULTI/.test(failure.message)) return 'split';
    // Tables read AT a snapshot of their own: each replaced at once by a name the planner knows as an empty
    // table of its columns then, and the executor as a view of its scan there (past-reads.ts).
    if (/does not support time travel/.test(failure.message) && ![...loaded.keys()].some((k) => k.startsWith(PAST_PLACEHOLDER))) {
      const reads = await pastReads(planned, (sql, arg) => ctx.engine.textFunction(sql, arg));
      if (reads.length > 0) {
        const scans = await pastScans(ctx, held, reads.map((p) => p.ref));
        for (const [i, p] of [...reads.entries()].reverse()) {
          const name = `${PAST_PLACEHOLDER}${i}`;
          loaded.set(name, scans[i]!.sql);
          shapes.push(loadedShape(name, scans[i]!));
          const replacement = `${ident(name)} AS ${ident(p.alias || p.ref.table)}`;
          planned = `${planned.slice(0, p.start)}${replacement}${planned.slice(p.end)}`;
          edits.push({ at: p.start, removed: p.end - p.start, added: replacement.length });
        }
        continue;
      }
    }
    const at = failure.position === undefined ? undefined : charIndex(planned, failure.position);
    const call = failure.type === 'permission' && at !== undefined ? await callAt(planned, at, (sql, arg) => ctx.engine.textFunction(sql, arg)) : undefined;
    if (call === undefined || at === undefined) throw await planError(failure, r, text, at === undefined ? undefined : original(at));
    const written = planned.slice(at, call.end);
    const reach = ctx.hostFiles;
    if (reach === false || !isHostReader(call.name)) throw refusedTableFunction(call.name, written, reach !== false);
    if (loaded.size === MAX_HOST_CALLS) throw invalid(`the statement reads more than ${MAX_HOST_CALLS} host files; load them with catalog.load first`);
    const rows = await loadHostRows(ctx.engine, reach, call.sql);
    const name = `${HOST_PLACEHOLDER}${loaded.size}`;
    loaded.set(name, loadedScan(rows));
    shapes.push(loadedShape(name, rows));
    planned = `${planned.slice(0, at)}${name}${planned.slice(call.end)}`;
    edits.push({ at, removed: written.length, added: name.length });
  }
}

/** Names of a query's rows read first (`planLoading`): the view the statement reads, and the database they are in. */
const QUERY_PLACEHOLDER = `__strata_query_${randomHex(6)}_`;

/** The rows of `query` (a SELECT) read through the read path at the head into a database file of the statement's, and their columns. */
async function readQuery(ctx: PlaneContext, query: string, params: SqlOptions['params']): Promise<{ name: string; alias: string; file: string; columns: { name: string; type: string }[] }> {
  const file = ctx.engine.path('query');
  const name = `${QUERY_PLACEHOLDER}rows`;
  const alias = `${QUERY_PLACEHOLDER}${randomHex(4)}`;
  const { columns } = await selectInto(ctx, query, params === undefined ? undefined : { params }, file);
  return { name, alias, file, columns };
}

/** DuckDB's failure to plan `text` over the mirror, said in the catalog's terms and pointing into `text` (at index `at`). */
async function planError(failure: PlanFailure, r: ReadState, text: string, at: number | undefined): Promise<StrataError> {
  const position = at === undefined ? undefined : Buffer.byteLength(text.slice(0, at));
  // DuckDB plans a parameter only where its type follows from what it stands against (id = $1, VALUES ($1));
  // inside an expression (id + $1, upper($1)) its planner fails on the untyped value.
  if (/dereference unique_ptr that is NULL|Could not determine type of parameter/.test(failure.message)) {
    return errorAt('INVALID_ARGUMENT', "DuckDB cannot plan a parameter whose type does not follow from where it stands (id + $1, upper($1)); give each such parameter its type: $1::BIGINT, $1::VARCHAR", text, position);
  }
  if (/does not support time travel/.test(failure.message)) {
    return invalid('AT (VERSION | TIMESTAMP) in a statement that writes is read only in the query an INSERT or a CREATE TABLE … AS ends with (INSERT INTO t SELECT * FROM t AT (VERSION => 3)); an UPDATE, DELETE, MERGE or view definition reads the head: make a table of the old rows first (CREATE TABLE old AS SELECT … AT …)');
  }
  const missing = /Table with name (.+?) does not exist/.exec(failure.message);
  if (missing) {
    const names: string[] = [];
    for (const s of await r.schemas()) for (const t of await r.tables(s.name)) names.push(`${s.name}.${t.name}`);
    const shown = names.length > 20 ? `${names.slice(0, 20).join(', ')}, … (${names.length} in all)` : names.join(', ') || 'none';
    return errorAt('NOT_FOUND', `the statement names a table ${missing[1]} that the head (snapshot ${r.snapshot.id}) does not have; its tables: ${shown}`, text, position);
  }
  const refused = failure.type === 'permission' ? /Cannot access (?:file|directory) "([^"]*)"/.exec(failure.message) : null;
  if (refused) {
    return errorAt('INVALID_ARGUMENT', `the statement reaches ${refused[1]}, outside the lake: sql() reads and writes the catalog's tables, and reads host files only through read_csv, read_json, read_parquet, … for a caller that opts in (hostFiles)`, text, position);
  }
  return errorAt('INVALID_ARGUMENT', failure.type === 'parser' ? `the statement does not parse: ${failure.message}` : failure.message, text, position);
}
