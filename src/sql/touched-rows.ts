// The rows of its target a DELETE, UPDATE or MERGE can touch, as a query: what the statement's scratch
// database needs to hold of the target (rewrite.ts), where copying every live row cost the time of the whole
// statement many times over (issue 47: a MERGE of 1% of 1M rows 56x DuckDB's on a plain table). DuckDB's
// parser serialises no statement that writes, so the query is made of the statement's own text, divided at
// its top-level keywords (top-level.ts):
//   DELETE FROM target [USING from] WHERE cond          SELECT * FROM target WHERE cond
//   UPDATE target SET … [FROM from] WHERE cond            or, with a list: … WHERE rowid IN (SELECT rowid FROM target, from WHERE cond)
//   MERGE INTO target USING source ON cond | USING (c)  SELECT * FROM target SEMI JOIN source ON cond | USING (c)
// Each gives the target's columns alone, its names bound as the statement binds them (the list joined to the
// target in one FROM, as the statement joins it). The statement then runs as written on those rows and
// changes what it would have changed on all of them — but only where the rows it touches do not depend on
// rows outside them, or on a draw that a second evaluation makes again: its plan reads the target once (a
// subquery over the target would see only those rows), calls no function whose value may change between the
// two (random() draws again, now() is another transaction's) and samples nothing, a MERGE has no WHEN NOT
// MATCHED BY SOURCE (it touches the rows the source does not match); and the query's own parse holds none of
// those either (a table function's arguments are evaluated before any plan), nor the target's whole row (the
// query's target has columns of the scratch table's own). Any other statement, and a query DuckDB does not
// take as one SELECT, keeps every row.
import type { BoundParams } from './params.js';
import type { Named, PlanNode } from './mirror.js';
import { readsTargetOnce } from './plan-filter.js';
import { protectBig, type ScalarSql, walk } from './statement.js';
import { afterComments } from './comments.js';
import { isPureTableFunction } from './table-functions.js';
import { holdsToken, topLevelWords, type Word } from './top-level.js';

/** What a statement's text holds between its keywords. */
type Parts =
  /** A DELETE or an UPDATE: `from` its USING or FROM list, joined as FROM joins. */
  | { target: string; from: string | undefined; where: string }
  /** A MERGE: its source, and how it matches the target (`ON cond` or `USING (columns)`, as written). */
  | { target: string; source: string; match: string };

/** DuckDB's functions whose value is not the same on every evaluation of one set of arguments, as `duckdb_functions()` declares them. */
export const DECLARED_UNSTABLE = [
  // VOLATILE: random() draws again.
  'current_connection_id', 'current_query', 'current_query_id', 'current_transaction_id', 'currval', 'error', 'gen_random_uuid',
  'nextval', 'random', 'setseed', 'sleep_ms', 'stats', 'uuid', 'uuidv4', 'uuidv7', 'write_log',
  // CONSISTENT_WITHIN_QUERY: now() is the transaction's start, and the query of the rows and the statement are two.
  'current_database', 'current_date', 'current_schema', 'current_schemas', 'get_current_time', 'get_current_timestamp',
  'in_search_path', 'now', 'today', 'transaction_timestamp', 'txid_current',
];

/**
 * The declared ones (a test holds them equal to `duckdb_functions()`, whose reading costs a fresh process some
 * 35 ms: a CLI call's whole statement over again), and the times of day the ICU extension declares CONSISTENT
 * though each transaction has its own, with the keywords that name them and now() before binding.
 */
export const UNSTABLE_FUNCTIONS: ReadonlySet<string> = new Set([
  ...DECLARED_UNSTABLE,
  'current_localtime', 'current_localtimestamp', 'current_time', 'current_timestamp', 'localtime', 'localtimestamp',
]);

/** A query of the rows a statement can touch, and the values of the parameters it holds. */
export interface TouchedRows {
  query: string;
  params: BoundParams | undefined;
}

interface Node {
  [k: string]: unknown;
}

/** The statement as the query of its rows is made of it. */
export interface TouchedStatement {
  text: string;
  plan: PlanNode;
  /** Its write: LOGICAL_DELETE, LOGICAL_UPDATE or LOGICAL_MERGE_INTO. */
  node: PlanNode;
  target: Named;
  /** The names the scratch database holds before the catalog's views are made: the tables the statement reads, rows it loaded first. */
  relations: readonly string[];
  params: BoundParams | undefined;
}

/**
 * The query of the rows of the statement's target, under its name (`rowid` a column of its scratch view), that
 * the statement can touch, or undefined when that is every row.
 */
export async function touchedRowsQuery(statement: TouchedStatement, rowid: string, run: ScalarSql): Promise<TouchedRows | undefined> {
  const { text, plan, node, target, params } = statement;
  if (!readsTargetOnce(plan, target)) return undefined;
  if (node.type === 'LOGICAL_MERGE_INTO' && (node.actions as { key: string }[]).some((a) => a.key === 'WHEN_NOT_MATCHED_BY_SOURCE')) return undefined;
  if (!steady(plan, new Set())) return undefined;
  const parts = partsOf(text);
  if (parts === undefined) return undefined;
  // Each part on its own line: one that ends in a -- comment does not swallow what follows it.
  const query =
    'source' in parts
      ? `SELECT * FROM ${parts.target}\nSEMI JOIN ${parts.source}\n${parts.match}\n`
      : parts.from === undefined
        ? `SELECT * FROM ${parts.target}\nWHERE ${parts.where}\n`
        : `SELECT * FROM ${parts.target}\nWHERE ${rowid} IN (SELECT ${rowid} FROM ${parts.target}, ${parts.from}\nWHERE ${parts.where}\n)\n`;
  // One SELECT, as DuckDB reads it, or nothing: text read otherwise here than by DuckDB is not run.
  const parsed = JSON.parse(protectBig(await run('SELECT json_serialize_sql($1::VARCHAR) AS v', query))) as Node;
  const statements = parsed.statements as { node: Node }[] | undefined;
  if (parsed.error === true || statements?.length !== 1 || statements[0]!.node.type !== 'SELECT_NODE') return undefined;
  const from = statements[0]!.node.from_table as Node;
  const head = (from.type === 'JOIN' ? from.left : from) as Node;
  if (!steady(parsed, new Set([head.table_name, head.alias].filter((n) => typeof n === 'string' && n !== '').map((n) => (n as string).toLowerCase())))) return undefined;
  // A name the query reads that the scratch database does not yet hold as the statement's (a catalog view,
  // made later) could be DuckDB's own relation of that name there (duckdb_views, sqlite_master).
  if (!readsOnly(parsed, new Set([target.table, ...statement.relations].map((n) => n.toLowerCase())))) return undefined;
  const bound = boundTo(parsed, text, params);
  return bound === false ? undefined : { query, params: bound };
}

/**
 * Whether `tree` (a plan, or the query's parse) selects the same rows on every evaluation, on whole rows of no
 * relation in `whole`: no unstable function (by name, or as the keyword that names it), no sample, no
 * reference to a whole row of the target.
 */
function steady(tree: unknown, whole: ReadonlySet<string>): boolean {
  let ok = true;
  walk(tree, (o) => {
    const name = typeof o.function_name === 'string' ? o.function_name : typeof o.expression_class === 'string' && typeof o.name === 'string' ? o.name : undefined;
    const column = o.class === 'COLUMN_REF' && (o.column_names as string[]).length === 1 ? (o.column_names as string[])[0]!.toLowerCase() : undefined;
    if (
      (name !== undefined && UNSTABLE_FUNCTIONS.has(name.toLowerCase())) ||
      (column !== undefined && (UNSTABLE_FUNCTIONS.has(column) || whole.has(column))) ||
      (o.class === 'STAR' && whole.has(String(o.relation_name).toLowerCase())) ||
      (o.sample !== undefined && o.sample !== null) ||
      (typeof o.type === 'string' && o.type.includes('SAMPLE'))
    ) {
      ok = false;
    }
  });
  return ok;
}

/** Whether the query reads tables named in `names` (or its own WITH names) and pure table functions, and nothing else. */
function readsOnly(parsed: Node, names: ReadonlySet<string>): boolean {
  const own = new Set<string>();
  let ok = true;
  walk(parsed, (o) => {
    for (const c of (o.cte_map as { map?: { key: string }[] } | undefined)?.map ?? []) own.add(c.key.toLowerCase());
    if (o.type === 'BASE_TABLE' && !names.has(String(o.table_name).toLowerCase()) && !own.has(String(o.table_name).toLowerCase())) ok = false;
    if (o.type === 'TABLE_FUNCTION' && !isPureTableFunction(String((o.function as Node).function_name))) ok = false;
  });
  return ok;
}

/**
 * The values of the parameters the query holds, as DuckDB binds them (it refuses one its text lacks), or false
 * when they cannot be told: a `?` (numbered by its place in the text, which the query does not keep), or
 * numbers with a gap.
 */
function boundTo(parsed: Node, text: string, params: BoundParams | undefined): BoundParams | undefined | false {
  const held = new Set<string>();
  walk(parsed, (o) => {
    if (o.class === 'PARAMETER') held.add(String(o.identifier));
  });
  if (held.size === 0) return undefined;
  if (params === undefined || holdsToken(text, '?')) return false;
  if (!Array.isArray(params)) return Object.fromEntries([...held].map((name) => [name, (params as Record<string, unknown>)[name]])) as BoundParams;
  const numbers = [...held].map(Number).sort((a, b) => a - b);
  return numbers.every((n, i) => n === i + 1) ? params.slice(0, numbers.length) : false;
}

/** The statement's parts, when it is a DELETE, UPDATE or MERGE written as the header above shows. */
export function partsOf(text: string): Parts | undefined {
  const words = topLevelWords(text);
  if (words[0]?.start !== afterComments(text)) return undefined;
  const at = (i: number) => words[i]?.word;
  const slice = (from: Word, to: Word | undefined) => text.slice(from.end, to?.start ?? text.length).trim();
  /** The first word from index `from` on that is one of `names`. */
  const next = (from: number, ...names: string[]) => {
    const i = words.findIndex((w, j) => j >= from && names.includes(w.word));
    return i < 0 ? undefined : i;
  };
  /** The word a clause ends at: the next one's (index `i`), else the statement's ";", else none (the text's end). */
  const end = next(0, ';');
  const before = (i: number | undefined) => words[i ?? end ?? words.length];

  if (at(0) === 'DELETE' && at(1) === 'FROM') {
    const using = next(2, 'USING');
    const where = next(2, 'WHERE');
    const returning = next(2, 'RETURNING');
    if (where === undefined) return undefined;
    return {
      target: slice(words[1]!, words[using ?? where]),
      from: using === undefined ? undefined : slice(words[using]!, words[where]),
      where: slice(words[where]!, before(returning)),
    };
  }
  if (at(0) === 'UPDATE') {
    const set = next(1, 'SET');
    if (set === undefined) return undefined;
    // FROM after SET is the UPDATE's own unless it ends IS [NOT] DISTINCT FROM, which is an operator.
    const from = words.findIndex((w, j) => j > set && w.word === 'FROM' && at(j - 1) !== 'DISTINCT');
    const where = next(set, 'WHERE');
    const returning = next(set, 'RETURNING');
    if (where === undefined || (from >= 0 && from > where)) return undefined;
    return {
      target: slice(words[0]!, words[set]),
      from: from < 0 ? undefined : slice(words[from]!, words[where]),
      where: slice(words[where]!, before(returning)),
    };
  }
  if (at(0) === 'MERGE' && at(1) === 'INTO') {
    const using = next(2, 'USING');
    if (using === undefined) return undefined;
    const match = next(using + 1, 'ON', 'USING');
    const when = next(using + 1, 'WHEN');
    if (match === undefined || when === undefined || match > when) return undefined;
    const source = slice(words[using]!, words[match]);
    // A source that is itself a join would leave its own ON to be read as the MERGE's.
    if (words.slice(using + 1, match).some((w) => w.word === 'JOIN' || w.word === ',')) return undefined;
    return { target: slice(words[1]!, words[using]), source, match: text.slice(words[match]!.start, words[when]!.start).trim() };
  }
  return undefined;
}
