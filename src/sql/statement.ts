// A SELECT as DuckDB's own parser sees it (json_serialize_sql): every reference to a catalog table with its
// AT clause, and the statement again with each reference replaced by a placeholder name
// (json_deserialize_sql), where the SELECT that reads the table's files at its snapshot goes. No SQL grammar
// of our own.
import { StrataError } from '../errors.js';
import type { SnapshotSelector } from '../read/resolve-snapshot.js';
import { parseInstant, parseSnapshotId, readsAsSnapshot } from '../snapshot-names.js';
import { errorAt } from './statement-errors.js';
import { CATALOG_FUNCTIONS, type CatalogRelation, type ChangeKinds } from './catalog-relations.js';
import { isPureTableFunction } from './table-functions.js';

/**
 * An AT (TIMESTAMP => …) whose time is an expression (now() - INTERVAL 5 MINUTE): DuckDB's text of it,
 * evaluated when the statement runs, once per statement (query.ts).
 */
export interface TimeExpression {
  timeExpression: string;
  /** Which reference's AT it is, for a message. */
  where: string;
}

/**
 * A table_changes() bound given as a parameter (`$1`, `?`, `$from`): its value, bound when the statement runs
 * (a snapshot id as a number or bigint, a time as a string or a Date), is read here, not by DuckDB.
 */
export interface ParameterBound {
  parameter: string;
  /** Which bound it is, for a message. */
  where: string;
}

export type AtClause = SnapshotSelector | TimeExpression | ParameterBound;

/** A table reference of the statement: which table, at which snapshot (undefined: the statement's). */
export interface TableRef {
  schema: string;
  table: string;
  at: AtClause | undefined;
  /**
   * The WHERE clause of the SELECT that reads this table alone (its FROM is this reference), and the names
   * that qualify its columns there: what file skipping may use. Undefined for a table in a join.
   */
  filter: { where: unknown; names: string[] } | undefined;
}

/** What runs the two DuckDB functions: one text in, one text out. */
export type ScalarSql = (sql: string, arg: string) => Promise<string>;

interface Node {
  [k: string]: unknown;
}

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

// JSON numbers past 2^53 (a BIGINT constant in the query, DuckDB's "no location" marker) would come back
// from JSON.parse rounded; they travel as strings while the tree is in JavaScript.
const BIG = '__strata_big__:';
// So do the non-finite doubles DuckDB prints bare (`SELECT 1e400` is Infinity), which are not JSON at all.
export const protectBig = (json: string) =>
  json.replace(/("(?:[^"\\]|\\.)*")|((?<![\d.])-?\d{16,}(?:\.\d+)?(?:[eE][+-]?\d+)?|-?\bInfinity\b|\bNaN\b)/g, (m, str: string | undefined) => (str !== undefined ? m : `"${BIG}${m}"`));
export const restoreBig = (json: string) => json.replace(/"__strata_big__:(-?Infinity|NaN|[-+.eE0-9]+)"/g, '$1');
/** A JSON value of a protected tree as text: a protected big number as its digits. */
export const bigText = (v: unknown): string => (typeof v === 'string' && v.startsWith(BIG) ? v.slice(BIG.length) : String(v));

/**
 * A call of a table function that may not run as written (table-functions.ts): its name, and a SELECT of all
 * its rows as DuckDB prints it.
 */
export interface TableCall {
  name: string;
  sql: string;
  /** A relation of the catalog's (snapshots(), DESCRIBE s.t, SHOW TABLES), read from the catalog, not run as written. */
  catalog?: CatalogRelation;
}

/**
 * A statement DuckDB parsed: a SELECT with its references, the table function calls that may not run as
 * written, and its rewritten text (reference i reading `${prefix}i`, call j `${prefix}fj`); or another kind (a write).
 */
export type Prepared =
  | { kind: 'select'; refs: TableRef[]; calls: TableCall[]; text: string; parameters: { bounds: Set<string>; kept: Set<string> } }
  | { kind: 'other' };

/** Statements prepared lately, by placeholder prefix and text: a planner repeats its statements. */
const PREPARED = new Map<string, Promise<Prepared>>();
const PREPARED_MAX = 256;

/**
 * `sql`'s table references, and its text with reference i reading `${prefix}${i}` instead — the same
 * for the same text, so a repeated statement is parsed and rewritten by DuckDB once (two calls of a
 * prepared statement, 0.3–0.7 ms each here). A statement other than SELECT, which DuckDB's parser does not
 * serialise, is `other`.
 */
export function prepare(sql: string, prefix: string, run: ScalarSql): Promise<Prepared> {
  return cached(`${prefix}\u0000${sql}`, () => Statement.parse(sql, run), prefix, run);
}

/** The same for a view's definition (view-definition.ts): DuckDB's serialised SELECT, not text to parse. */
export function prepareDefinition(definition: string, prefix: string, run: ScalarSql): Promise<Prepared> {
  return cached(`${prefix}\u0001${definition}`, async () => Statement.of(oneSelect(definition)), prefix, run);
}

function cached(key: string, parse: () => Promise<Statement | undefined>, prefix: string, run: ScalarSql): Promise<Prepared> {
  let p = PREPARED.get(key);
  if (p === undefined) {
    p = parse().then(async (s): Promise<Prepared> => {
      if (s === undefined) return { kind: 'other' };
      const calls = await s.callsOf(run);
      await s.timeExpressions(run);
      const text = await s.rewrite(s.refs.map((_r, i) => `${prefix}${i}`), calls.map((_c, j) => `${prefix}f${j}`), run);
      return { kind: 'select', refs: s.refs, calls, text, parameters: s.parameters() };
    });
    p.catch(() => PREPARED.delete(key));
    if (PREPARED.size >= PREPARED_MAX) PREPARED.delete(PREPARED.keys().next().value!);
  } else PREPARED.delete(key); // re-inserted below: most recent last
  PREPARED.set(key, p);
  return p;
}

/**
 * DuckDB's parse of `sql` when it is one SELECT: its serialised text as DuckDB wrote it, and that text parsed
 * (big numbers protected). Undefined for one statement of another kind, which the parser does not serialise;
 * else INVALID_ARGUMENT with DuckDB's message.
 */
export async function parseSelect(sql: string, run: ScalarSql): Promise<{ serialised: string; tree: Node } | undefined> {
  if (typeof sql !== 'string' || sql.trim() === '') throw invalid('sql() takes the text of a SQL statement');
  const serialised = await run('SELECT json_serialize_sql($1::VARCHAR) AS v', sql);
  const tree = JSON.parse(protectBig(serialised)) as Node;
  if (tree.error === true) {
    const message = String(tree.error_message);
    if (/only select/i.test(message)) return undefined;
    throw errorAt('INVALID_ARGUMENT', `the statement does not parse: ${message}`, sql, tree.position === undefined ? undefined : Number(tree.position));
  }
  const statements = tree.statements as Node[];
  if (statements.length !== 1) throw invalid(`sql() runs one statement at a time; got ${statements.length}`);
  return { serialised, tree };
}

/**
 * A stored definition parsed, and held to what it was checked to be when stored: one SELECT. What the store
 * holds is checksummed, so anything else is damage, said as such rather than run.
 */
export function oneSelect(definition: string): Node {
  let tree: Node | undefined;
  try {
    tree = JSON.parse(protectBig(definition)) as Node;
  } catch {
    tree = undefined;
  }
  if (tree?.error !== false || !Array.isArray(tree.statements) || tree.statements.length !== 1) {
    throw new StrataError('CORRUPT', 'a view definition in the catalog is not the one SELECT it was checked to be when stored; strata verify checks the catalog');
  }
  return tree;
}

/**
 * `text` from `prepare` with reference i replaced by the subquery `scans[i]`. The placeholders are names
 * DuckDB printed, so each stands alone as one identifier (quoted or not) where a table reference goes.
 */
export function inline(text: string, prefix: string, scans: readonly string[]): string {
  const placeholder = new RegExp(`"?${prefix}(\\d+)"?(?![\\w])`, 'g');
  return text.replace(placeholder, (_m, i: string) => `(${scans[Number(i)]!})`);
}

/**
 * Why SHOW TABLES, SHOW ALL TABLES, SHOW DATABASES are not run: DuckDB answers them from the engine's own
 * catalog, which holds none of the lake's tables (the engine keeps only what it read there).
 */
const SHOW_REFUSED =
  "this SHOW lists DuckDB's own catalog, not the lake's, so sql() does not run it; SHOW TABLES, SHOW ALL TABLES and DESCRIBE schema.table answer from the lake, " +
  'and catalog.reader().schemas() and reader().tables(schema) list it (strata show on the command line)';

/**
 * The catalog relation a SHOW or DESCRIBE is: SHOW TABLES, SHOW ALL TABLES, DESCRIBE (or SHOW) of one table as
 * written; undefined for a DESCRIBE of a query or of a WITH name, and for SUMMARIZE, which DuckDB answers over
 * what they read.
 */
function showRelation(n: Node, ctes: ReadonlySet<string>): CatalogRelation | undefined {
  const query = n.query as Node | null | undefined;
  if (query === null || query === undefined) {
    const unqualified = n.schema_name === '' && n.catalog_name === '';
    if (unqualified && n.table_name === '"tables"') return { kind: 'show_tables' };
    if (unqualified && n.table_name === '__show_tables_expanded') return { kind: 'show_all_tables' };
    throw invalid(SHOW_REFUSED);
  }
  const from = query.from_table as Node | undefined;
  const list = query.select_list as Node[] | undefined;
  const plain = query.type === 'SELECT_NODE' && list?.length === 1 && list[0]!.class === 'STAR' && query.where_clause === null && (query.modifiers as unknown[]).length === 0;
  if (n.show_type !== 'DESCRIBE' || !plain || from?.type !== 'BASE_TABLE' || from.at_clause || from.catalog_name !== '') return undefined;
  if (from.schema_name === '' && ctes.has(from.table_name as string)) return undefined;
  return { kind: 'describe', schema: (from.schema_name as string) || 'main', table: from.table_name as string };
}

export class Statement {
  private constructor(
    private readonly tree: Node,
    readonly refs: TableRef[],
    private readonly nodes: Node[],
    private readonly calls: Node[],
    /** The time expressions of AT (TIMESTAMP => …) clauses and of table_changes() bounds: their text is made by timeExpressions(). */
    private readonly times: Map<TimeExpression, Node>,
    /** The calls that are catalog relations (snapshots(), DESCRIBE s.t, SHOW TABLES). */
    private readonly relations: Map<Node, CatalogRelation>,
  ) {}

  /**
   * Parses `sql`: one SELECT statement; undefined for one statement of another kind; else INVALID_ARGUMENT
   * with DuckDB's message.
   */
  static async parse(sql: string, run: ScalarSql): Promise<Statement | undefined> {
    const parsed = await parseSelect(sql, run);
    return parsed === undefined ? undefined : Statement.of(parsed.tree);
  }

  /** A parsed SELECT (json_serialize_sql's tree, one statement): its catalog table references found. */
  static of(parsed: Node): Statement {
    const ctes = new Set<string>();
    const nodes: Node[] = [];
    const calls: Node[] = [];
    const relations = new Map<Node, CatalogRelation>();
    const described = new Set<Node>();
    const wheres = new Map<Node, unknown>();
    const times = new Map<TimeExpression, Node>();
    walk(parsed, (n) => {
      const map = (n.cte_map as { map?: { key: string }[] } | undefined)?.map;
      for (const c of map ?? []) ctes.add(c.key);
      if (n.type === 'BASE_TABLE') {
        const schema = informationSchema(n);
        if (schema === undefined) nodes.push(n);
        else (relations.set(n, schema), calls.push(n));
      }
      // SHOW TABLES and its kin name no query (DESCRIBE t and SUMMARIZE t do, and read the lake through it).
      if (n.type === 'SHOW_REF') {
        const relation = showRelation(n, ctes);
        if (relation !== undefined) {
          relations.set(n, relation);
          calls.push(n);
          // The table it describes is read from the catalog, not scanned.
          if (relation.kind === 'describe') described.add((n.query as Node).from_table as Node);
        }
      }
      if (n.type === 'TABLE_FUNCTION' && !isPureTableFunction(String((n.function as Node).function_name))) {
        const fn = n.function as Node;
        const name = String(fn.function_name).toLowerCase();
        const relation = CATALOG_FUNCTIONS.get(name);
        const only = CHANGE_FUNCTIONS.get(name);
        if (relation !== undefined && (fn.children as unknown[]).length > 0) throw invalid(`${String(fn.function_name)}() takes no arguments: it reads the lake at the statement's snapshot`);
        if (relation !== undefined) relations.set(n, relation);
        if (only !== undefined) relations.set(n, changesRelation(name, only, fn.children as Node[], times));
        if (name === 'files') relations.set(n, filesRelation(fn.children as Node[]));
        calls.push(n);
      }
      const from = n.from_table as Node | undefined;
      if (n.type === 'SELECT_NODE' && from?.type === 'BASE_TABLE' && n.where_clause) wheres.set(from, n.where_clause);
    });
    const refs: TableRef[] = [];
    const kept: Node[] = [];
    for (const n of nodes) {
      if (described.has(n)) continue;
      // A name a WITH clause defines is the query's own, not a catalog table.
      if (n.schema_name === '' && n.catalog_name === '' && ctes.has(n.table_name as string)) {
        if (n.at_clause) throw invalid(`${String(n.table_name)} is a WITH query of the statement; AT applies to catalog tables only`);
        continue;
      }
      if (n.catalog_name !== '') throw invalid(`${String(n.catalog_name)}.${String(n.schema_name)}.${String(n.table_name)}: the catalog has no attached databases; name tables as schema.table`);
      const where = wheres.get(n);
      const names = [(n.alias as string) || (n.table_name as string)];
      const at = atClause(n);
      const ref: TableRef = { schema: (n.schema_name as string) || 'main', table: n.table_name as string, at: timed(at, times), filter: where === undefined ? undefined : { where, names } };
      refs.push(ref);
      kept.push(n);
    }
    return new Statement(parsed, refs, kept, calls, times, relations);
  }

  /**
   * The parameters the statement's table_changes() bounds take, which the catalog reads, and those the text
   * DuckDB runs keeps: called after rewrite(), which leaves that text's tree here (the calls gone).
   */
  parameters(): { bounds: Set<string>; kept: Set<string> } {
    const bounds = new Set<string>();
    for (const rel of this.relations.values()) {
      if (rel.kind === 'table_changes') for (const b of [rel.from, rel.to]) if ('parameter' in b) bounds.add(b.parameter);
    }
    const kept = new Set<string>();
    walk(this.tree, (n) => {
      if (n.class === 'PARAMETER') kept.add(String(n.identifier));
    });
    return { bounds, kept };
  }

  /** Whether the statement reads a relation of the catalog's own (snapshots(), table_changes(), information_schema, …). */
  readsCatalog(): boolean {
    return this.relations.size > 0;
  }

  /** Each reference with an AT: its index in `refs` and its parse node (where it starts, its alias). */
  *atNodes(): Iterable<[number, Node]> {
    for (const [i, n] of this.nodes.entries()) if (n.at_clause) yield [i, n];
  }

  /** Each time expression's text (an AT's, a table_changes() bound's), as DuckDB prints the expression. */
  async timeExpressions(run: ScalarSql): Promise<void> {
    if (this.times.size === 0) return;
    const skeleton = JSON.parse(protectBig(await run('SELECT json_serialize_sql($1::VARCHAR) AS v', 'SELECT 1'))) as { statements: { node: Node }[] };
    for (const [time, expr] of this.times) {
      skeleton.statements[0]!.node.select_list = [{ ...expr, alias: '' }];
      const text = await run('SELECT json_deserialize_sql($1::VARCHAR) AS v', deserializable(skeleton));
      if (!text.startsWith('SELECT ')) throw new Error(`DuckDB printed an expression as ${JSON.stringify(text)}`);
      time.timeExpression = text.slice('SELECT '.length);
    }
  }

  /** The table function calls that may not run as written, each as a SELECT of all its rows. */
  async callsOf(run: ScalarSql): Promise<TableCall[]> {
    if (this.calls.length === 0) return [];
    const skeleton = JSON.parse(protectBig(await run('SELECT json_serialize_sql($1::VARCHAR) AS v', 'SELECT * FROM range(1)'))) as { statements: { node: Node }[] };
    const out: TableCall[] = [];
    for (const call of this.calls) {
      const catalog = this.relations.get(call);
      if (catalog !== undefined) {
        out.push({ name: catalog.kind, sql: '', catalog });
        continue;
      }
      skeleton.statements[0]!.node.from_table = { ...call, alias: '', column_name_alias: [] };
      out.push({ name: String((call.function as Node).function_name), sql: await run('SELECT json_deserialize_sql($1::VARCHAR) AS v', deserializable(skeleton)) });
    }
    return out;
  }

  /**
   * The statement with reference i reading from view `names[i]` instead (its alias kept, or the table's
   * name), and table function call j from `callNames[j]` (its alias kept, or the function's name).
   */
  async rewrite(names: readonly string[], callNames: readonly string[], run: ScalarSql): Promise<string> {
    this.nodes.forEach((n, i) => {
      if (!n.alias) n.alias = n.table_name;
      n.schema_name = '';
      n.table_name = names[i];
      n.at_clause = null;
    });
    this.calls.forEach((n, j) => {
      const relation = this.relations.get(n);
      const { function: fn, with_ordinality: _ordinality, ...rest } = n;
      for (const k of Object.keys(n)) delete n[k];
      // A SHOW or DESCRIBE keeps none of its own fields: it becomes a plain reference to its rows.
      const kept = fn === undefined ? { alias: rest.alias, sample: null, query_location: rest.query_location, column_name_alias: [] } : rest;
      Object.assign(n, kept, { type: 'BASE_TABLE', alias: rest.alias || (relation?.kind ?? (fn as Node).function_name), schema_name: '', table_name: callNames[j], catalog_name: '', at_clause: null });
    });
    return run('SELECT json_deserialize_sql($1::VARCHAR) AS v', deserializable(this.tree));
  }
}

/**
 * A parsed tree as json_deserialize_sql takes it back: big numbers as their digits again, and every DOUBLE or
 * FLOAT literal as a cast of its text to its type. DuckDB prints a double literal as its digits (1e7 as
 * 10000000.0, 1.5e0 as 1.5), which its parser reads back as a DECIMAL, or not at all (Infinity); the cast of
 * the shortest text that round-trips is the same double, typed as it was.
 */
export function deserializable(tree: unknown): string {
  walk(tree, (n) => {
    const v = n.value as { type?: { id?: unknown }; is_null?: boolean; value?: unknown } | undefined;
    if (n.class !== 'CONSTANT' || v === undefined || v.is_null === true || (v.type?.id !== 'DOUBLE' && v.type?.id !== 'FLOAT')) return;
    const text = bigText(v.value);
    const { query_location: at } = n;
    for (const k of Object.keys(n)) if (k !== 'alias') delete n[k];
    Object.assign(n, {
      class: 'CAST',
      type: 'OPERATOR_CAST',
      query_location: at,
      child: { class: 'CONSTANT', type: 'VALUE_CONSTANT', alias: '', query_location: at, value: { type: { id: 'VARCHAR', type_info: null }, is_null: false, value: text } },
      cast_type: v.type,
      try_cast: false,
    });
  });
  return restoreBig(JSON.stringify(tree));
}

/** Visits every object of a parsed tree or a plan, depth first. */
export function walk(n: unknown, visit: (n: Node) => void): void {
  if (Array.isArray(n)) for (const x of n) walk(x, visit);
  else if (n !== null && typeof n === 'object') {
    visit(n as Node);
    for (const v of Object.values(n)) walk(v, visit);
  }
}

/** Integer types DuckDB gives a whole-number literal (a literal past BIGINT is a HUGEINT: no snapshot id is that large). */
const INTEGER_LITERAL = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT']);
/** What TIMESTAMP => may cast its string to: the string is then parsed as an instant here, never by DuckDB's rules. */
const TIME_CASTS = new Set(['TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', 'TIMESTAMP_TZ', 'DATE']);

/**
 * An AT clause as a reader's selector, exactly or not at all (docs/DESIGN.md §8.1): VERSION takes an integer literal
 * (an id) or a string (a tag); TIMESTAMP a string, or TIMESTAMP/DATE '…', that is a real instant. A decimal
 * (3.0), a boolean, a negative number or any other expression is INVALID_ARGUMENT.
 */
function atClause(n: Node): SnapshotSelector | TimeNode | undefined {
  const at = n.at_clause as { unit: string; expr: Node } | null | undefined;
  if (!at) return undefined;
  const where = `AT (${at.unit} => …) on ${String(n.schema_name) || 'main'}.${String(n.table_name)}`;
  const unit = at.unit.toUpperCase();
  if (unit === 'VERSION') {
    const c = constantOf(at.expr);
    if (c !== undefined && INTEGER_LITERAL.has(c.type)) return { snapshot: parseSnapshotId(where, c.text) };
    if (c?.type === 'VARCHAR') {
      const reads = readsAsSnapshot(c.text);
      if (reads !== undefined) {
        throw invalid(`${where}: '${c.text}' is a string, which names a tag, and no tag reads as a snapshot ${reads}; ${reads === 'id' ? `for snapshot ${c.text} write VERSION => ${c.text}` : `for a time write TIMESTAMP => '${c.text}'`}`);
      }
      return { tag: c.text };
    }
    throw invalid(`${where} takes an integer literal (a snapshot id, such as VERSION => 3) or a string (a tag name, such as VERSION => 'q1'); got ${described(at.expr)}`);
  }
  if (unit === 'TIMESTAMP') {
    const e = at.expr.class === 'CAST' && TIME_CASTS.has(castType(at.expr)) ? (at.expr.child as Node) : at.expr;
    const c = constantOf(e);
    if (c?.type === 'VARCHAR') return { timestamp: parseInstant(where, c.text) };
    if (e.class === 'CONSTANT') throw invalid(`${where} takes a time: a string, TIMESTAMP '…' or an expression such as now() - INTERVAL 5 MINUTE; got ${described(at.expr)}`);
    const outside = firstNotConstant(at.expr);
    if (outside !== undefined) {
      throw invalid(`${where} takes a time: a string such as '2026-03-01T12:00:00Z' or an expression of constants, evaluated once when the statement runs (now() - INTERVAL 5 MINUTE); it cannot read ${outside}`);
    }
    return new TimeNode(where, at.expr);
  }
  throw invalid(`${where}: AT takes VERSION or TIMESTAMP, not ${at.unit}`);
}

/** An AT (TIMESTAMP => …) expression found by the parse, before its text is made. */
class TimeNode {
  constructor(
    readonly where: string,
    readonly expr: Node,
  ) {}
}

/** A selector, or a time expression to be printed (kept in `times` until timeExpressions() gives it its text). */
function timed(at: SnapshotSelector | TimeNode | undefined, times: Map<TimeExpression, Node>): AtClause | undefined {
  if (!(at instanceof TimeNode)) return at;
  const time: TimeExpression = { timeExpression: '', where: at.where };
  times.set(time, at.expr);
  return time;
}

/** The views of information_schema the lake answers (DuckDB's own, over the mirror of the statement's snapshot). */
const INFORMATION_SCHEMA = new Set(['schemata', 'tables', 'columns']);

/** A reference to information_schema.tables and its kin as the relation it is; undefined for any other table. */
function informationSchema(n: Node): CatalogRelation | undefined {
  if (n.catalog_name !== '' || String(n.schema_name).toLowerCase() !== 'information_schema') return undefined;
  const view = String(n.table_name).toLowerCase();
  if (!INFORMATION_SCHEMA.has(view)) throw new StrataError('NOT_FOUND', `information_schema.${String(n.table_name)} is not one the lake answers; it has information_schema.schemata, .tables and .columns`);
  if (n.at_clause) throw invalid(`information_schema.${view} reads the statement's snapshot; AT does not apply to it: give sql() at, or AT on the lake's tables`);
  return { kind: 'information_schema', view: view as 'schemata' | 'tables' | 'columns' };
}

/** files('s.t'): the table's data files at the statement's snapshot, each with its delete file (DuckLake's list_files). */
function filesRelation(args: readonly Node[]): CatalogRelation {
  const table = args[0] === undefined ? undefined : constantOf(args[0]);
  if (args.length !== 1 || table?.type !== 'VARCHAR') throw invalid(`files('schema.table') takes the table as a string ('t' in schema main); got ${args.length} argument${args.length === 1 ? '' : 's'}`);
  return { kind: 'files', ...schemaAndTable(table.text) };
}

/** 's.t' as schema s, table t; 't' alone in schema main (as DuckLake's functions name a table). */
function schemaAndTable(text: string): { schema: string; table: string } {
  const dot = text.indexOf('.');
  return dot < 0 ? { schema: 'main', table: text } : { schema: text.slice(0, dot), table: text.slice(dot + 1) };
}

/** DuckLake's change feeds by name, and the changes each gives. */
const CHANGE_FUNCTIONS: ReadonlyMap<string, ChangeKinds> = new Map<string, ChangeKinds>([
  ['table_changes', 'all'],
  ['table_insertions', 'insertions'],
  ['table_deletions', 'deletions'],
]);

/**
 * table_changes('s.t', from, to) and its kin, as DuckLake takes them: the table's name as a string ('t' in
 * schema main, 's.t' in schema s), then the first and last snapshot, both inclusive, each an integer literal
 * (a snapshot id) or a time: a string, TIMESTAMP '…', or a constant expression (now() - INTERVAL 1 HOUR),
 * evaluated once per statement as an AT's is; or a parameter, whose value is read when the statement runs.
 */
function changesRelation(name: string, only: ChangeKinds, args: readonly Node[], times: Map<TimeExpression, Node>): CatalogRelation {
  const usage = `${name}('schema.table', from, to) takes the table as a string and the first and last snapshot (ids or times, both inclusive)`;
  const table = args[0] === undefined ? undefined : constantOf(args[0]);
  if (args.length !== 3 || table?.type !== 'VARCHAR') throw invalid(`${usage}; got ${args.length} argument${args.length === 1 ? '' : 's'}${table !== undefined && table.type !== 'VARCHAR' ? `, the first ${described(args[0]!)}` : ''}`);
  const bound = (which: string, e: Node): AtClause => {
    const where = `${name}()'s ${which} bound`;
    const c = constantOf(e);
    if (c !== undefined && INTEGER_LITERAL.has(c.type)) return { snapshot: parseSnapshotId(where, c.text) };
    const inner = e.class === 'CAST' && TIME_CASTS.has(castType(e)) ? (e.child as Node) : e;
    const text = constantOf(inner);
    if (text?.type === 'VARCHAR') return { timestamp: parseInstant(where, text.text) };
    if (inner.class === 'CONSTANT') throw invalid(`${where} is a snapshot id (an integer) or a time (a string, TIMESTAMP '…' or an expression such as now() - INTERVAL 1 HOUR); got ${described(e)}`);
    if (e.class === 'PARAMETER') return { parameter: String(e.identifier), where };
    const outside = firstNotConstant(e);
    if (outside?.startsWith('a parameter')) throw invalid(`${where} takes a parameter alone ($1, whose value is a snapshot id or a time), not inside an expression`);
    if (outside !== undefined) throw invalid(`${where} is evaluated once when the statement runs, from constants (now() - INTERVAL 1 HOUR); it cannot read ${outside}`);
    return timed(new TimeNode(where, e), times)!;
  };
  return {
    kind: 'table_changes',
    only,
    ...schemaAndTable(table.text),
    from: bound('first', args[1]!),
    to: bound('last', args[2]!),
  };
}

/** What an expression reads other than constants — a column, a subquery, a parameter — or undefined: it is a constant expression. */
function firstNotConstant(e: Node): string | undefined {
  let found: string | undefined;
  walk(e, (n) => {
    if (found !== undefined) return;
    if (n.class === 'COLUMN_REF') found = `a column (${(n.column_names as string[]).join('.')})`;
    else if (n.class === 'SUBQUERY') found = 'a subquery';
    else if (n.class === 'PARAMETER') found = 'a parameter (give the time in the statement, or as sql() at)';
    else if (n.class === 'STAR' || n.class === 'WINDOW' || n.class === 'LAMBDA') found = `a ${String(n.class).toLowerCase()} expression`;
  });
  return found;
}

/** A literal of the tree: its DuckDB type and its text. Undefined for NULL, a cast, a function — any expression. */
function constantOf(e: Node): { type: string; text: string } | undefined {
  if (e.class !== 'CONSTANT') return undefined;
  const v = e.value as { type: { id: string }; is_null: boolean; value: unknown };
  if (v.is_null || (typeof v.value !== 'string' && typeof v.value !== 'number')) return undefined;
  return { type: v.type.id, text: bigText(v.value) };
}

function castType(e: Node): string {
  return String((e.cast_type as { id?: unknown } | undefined)?.id ?? '');
}

/** What an AT value was, for a message: the tree keeps no source text, so its kind. */
function described(e: Node): string {
  if (e.class === 'CONSTANT') {
    const v = e.value as { type: { id: string }; is_null: boolean };
    // A DECIMAL literal's value is its unscaled integer (3.0 is 30): shown by its type alone.
    return v.is_null ? 'NULL' : `a ${v.type.id} literal${v.type.id === 'DECIMAL' ? '' : ` (${bigText((e.value as { value: unknown }).value)})`}`;
  }
  if (e.class === 'CAST') return `a cast to ${castType(e)}${castType(e) === 'BOOLEAN' ? ' (true, false)' : ''}`;
  if (e.class === 'FUNCTION') return `an expression (${String(e.function_name)}(…))`;
  return `an expression (${String(e.class).toLowerCase()})`;
}
