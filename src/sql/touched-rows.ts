// The rows of its target a DELETE, UPDATE or MERGE can touch, as a query: what the statement's scratch
// database needs to hold of the target (rewrite.ts), where copying every live row cost the time of the whole
// statement many times over (issue 47: a MERGE of 1% of 1M rows 56x DuckDB's on a plain table). DuckDB's
// parser serialises no statement that writes, so the query is made of the statement's own text, divided at
// its top-level keywords (top-level.ts):
//   DELETE FROM target [USING from] WHERE cond          SELECT * FROM target WHERE cond
//   UPDATE target SET … [FROM from] WHERE cond            or, with a list: … WHERE EXISTS (SELECT 1 FROM from WHERE cond)
//   MERGE INTO target USING source ON cond | USING (c)  SELECT * FROM target SEMI JOIN source ON cond | USING (c)
// (The EXISTS binds each name of a valid statement's cond as its join does: a name of a table of the list
// there, else of the target, and it cannot be both.) Each gives the target's columns alone.
// The statement then runs as written on those rows and changes what it would have changed on all of them —
// but only where its rows do not depend on rows outside them, which its plan says: it reads the target once
// (a subquery over the target would see only those rows), calls no function whose value may change between
// the two (random() draws again, now() is another transaction's), and a MERGE has no WHEN NOT MATCHED BY SOURCE (it touches the rows the source does not match). Any
// other statement, and a query DuckDB does not take as one SELECT, keeps every row.
import type { Named, PlanNode } from './mirror.js';
import { readsTargetOnce } from './plan-filter.js';
import type { ScalarSql } from './statement.js';
import { afterComments } from './comments.js';
import { topLevelWords, type Word } from './top-level.js';

/** What a statement's text holds between its keywords. */
type Parts =
  /** A DELETE or an UPDATE: `from` its USING or FROM list, joined as FROM joins. */
  | { target: string; from: string | undefined; where: string }
  /** A MERGE: its source, and how it matches the target (`ON cond` or `USING (columns)`, as written). */
  | { target: string; source: string; match: string };

/**
 * DuckDB's functions whose value is not the same on every evaluation of one set of arguments: VOLATILE (random()
 * draws again) and CONSISTENT_WITHIN_QUERY (now() is the transaction's start: the query of the rows and the
 * statement are two). Written out, as DuckDB's `duckdb_functions()` lists them (a test holds the two equal):
 * reading that list costs a fresh process some 35 ms, a CLI call's whole statement over again.
 */
export const UNSTABLE_FUNCTIONS: ReadonlySet<string> = new Set([
  'current_connection_id', 'current_database', 'current_date', 'current_query', 'current_query_id', 'current_schema',
  'current_schemas', 'current_transaction_id', 'currval', 'error', 'gen_random_uuid', 'get_current_time',
  'get_current_timestamp', 'in_search_path', 'nextval', 'now', 'random', 'setseed', 'sleep_ms', 'stats', 'today',
  'transaction_timestamp', 'txid_current', 'uuid', 'uuidv4', 'uuidv7', 'write_log',
]);

/**
 * The query of the rows of `target`, under its name, that the statement `text` (its plan `plan`, its write
 * `node`) can touch, or undefined when that is every row.
 */
export async function touchedRowsQuery(text: string, plan: PlanNode, node: PlanNode, target: Named, run: ScalarSql): Promise<string | undefined> {
  if (!readsTargetOnce(plan, target)) return undefined;
  if (node.type === 'LOGICAL_MERGE_INTO' && (node.actions as { key: string }[]).some((a) => a.key === 'WHEN_NOT_MATCHED_BY_SOURCE')) return undefined;
  if ([...functionsCalled(plan)].some((f) => UNSTABLE_FUNCTIONS.has(f))) return undefined;
  const parts = partsOf(text);
  if (parts === undefined) return undefined;
  // Each part on its own line: one that ends in a -- comment does not swallow what follows it.
  const query =
    'source' in parts
      ? `SELECT * FROM ${parts.target}\nSEMI JOIN ${parts.source}\n${parts.match}\n`
      : `SELECT * FROM ${parts.target}\nWHERE ${parts.from === undefined ? parts.where : `EXISTS (SELECT 1 FROM ${parts.from}\nWHERE ${parts.where}\n)`}\n`;
  // One SELECT, as DuckDB reads it, or nothing: text read otherwise here than by DuckDB is not run.
  const parsed = JSON.parse(await run('SELECT json_serialize_sql($1::VARCHAR) AS v', query)) as { error: boolean; statements?: { node: { type: string } }[] };
  return !parsed.error && parsed.statements?.length === 1 && parsed.statements[0]!.node.type === 'SELECT_NODE' ? query : undefined;
}

/** The names of the functions the plan calls, anywhere in it. */
function functionsCalled(plan: PlanNode): Set<string> {
  const out = new Set<string>();
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) for (const y of x) walk(y);
    else if (x !== null && typeof x === 'object') {
      const o = x as Record<string, unknown>;
      if (typeof o.expression_class === 'string' && typeof o.name === 'string') out.add(o.name);
      for (const v of Object.values(o)) walk(v);
    }
  };
  walk(plan);
  return out;
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
