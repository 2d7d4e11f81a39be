// A SELECT as DuckDB's own parser sees it (json_serialize_sql): every reference to a catalog table with its
// AT clause, and the statement again with each reference replaced by a placeholder name
// (json_deserialize_sql), where the SELECT that reads the table's files at its snapshot goes. No SQL grammar
// of our own.
import { StrataError } from '../errors.js';
import type { SnapshotSelector } from '../read/resolve-snapshot.js';
import { errorAt } from './statement-errors.js';
import { isPureTableFunction } from './table-functions.js';

/** A table reference of the statement: which table, at which snapshot (undefined: the statement's). */
export interface TableRef {
  schema: string;
  table: string;
  at: SnapshotSelector | undefined;
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
export const protectBig = (json: string) => json.replace(/("(?:[^"\\]|\\.)*")|((?<![\d.])-?\d{16,}(?:\.\d+)?(?:[eE][+-]?\d+)?)/g, (m, str: string | undefined) => (str !== undefined ? m : `"${BIG}${m}"`));
export const restoreBig = (json: string) => json.replace(/"__strata_big__:([-+.eE0-9]+)"/g, '$1');
/** A JSON value of a protected tree as text: a protected big number as its digits. */
export const bigText = (v: unknown): string => (typeof v === 'string' && v.startsWith(BIG) ? v.slice(BIG.length) : String(v));

/**
 * A call of a table function that may not run as written (table-functions.ts): its name, and a SELECT of all
 * its rows as DuckDB prints it.
 */
export interface TableCall {
  name: string;
  sql: string;
}

/**
 * A statement DuckDB parsed: a SELECT with its references, the table function calls that may not run as
 * written, and its rewritten text (reference i reading `${prefix}i`, call j `${prefix}fj`); or another kind (a write).
 */
export type Prepared = { kind: 'select'; refs: TableRef[]; calls: TableCall[]; text: string } | { kind: 'other' };

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
  const key = `${prefix}\u0000${sql}`;
  let p = PREPARED.get(key);
  if (p === undefined) {
    p = Statement.parse(sql, run).then(async (s): Promise<Prepared> => {
      if (s === undefined) return { kind: 'other' };
      const calls = await s.callsOf(run);
      return { kind: 'select', refs: s.refs, calls, text: await s.rewrite(s.refs.map((_r, i) => `${prefix}${i}`), calls.map((_c, j) => `${prefix}f${j}`), run) };
    });
    p.catch(() => PREPARED.delete(key));
    if (PREPARED.size >= PREPARED_MAX) PREPARED.delete(PREPARED.keys().next().value!);
  } else PREPARED.delete(key); // re-inserted below: most recent last
  PREPARED.set(key, p);
  return p;
}

/**
 * `text` from `prepare` with reference i replaced by the subquery `scans[i]`. The placeholders are names
 * DuckDB printed, so each stands alone as one identifier (quoted or not) where a table reference goes.
 */
export function inline(text: string, prefix: string, scans: readonly string[]): string {
  const placeholder = new RegExp(`"?${prefix}(\\d+)"?(?![\\w])`, 'g');
  return text.replace(placeholder, (_m, i: string) => `(${scans[Number(i)]!})`);
}

export class Statement {
  private constructor(
    private readonly tree: Node,
    readonly refs: TableRef[],
    private readonly nodes: Node[],
    private readonly calls: Node[],
  ) {}

  /**
   * Parses `sql`: one SELECT statement; undefined for one statement of another kind; else INVALID_ARGUMENT
   * with DuckDB's message.
   */
  static async parse(sql: string, run: ScalarSql): Promise<Statement | undefined> {
    if (typeof sql !== 'string' || sql.trim() === '') throw invalid('sql() takes the text of a SQL statement');
    const parsed = JSON.parse(protectBig(await run('SELECT json_serialize_sql($1::VARCHAR) AS v', sql))) as Node;
    if (parsed.error === true) {
      const message = String(parsed.error_message);
      if (/only select/i.test(message)) return undefined;
      throw errorAt('INVALID_ARGUMENT', `the statement does not parse: ${message}`, sql, parsed.position === undefined ? undefined : Number(parsed.position));
    }
    const statements = parsed.statements as Node[];
    if (statements.length !== 1) throw invalid(`sql() runs one statement at a time; got ${statements.length}`);
    const ctes = new Set<string>();
    const nodes: Node[] = [];
    const calls: Node[] = [];
    const wheres = new Map<Node, unknown>();
    walk(parsed, (n) => {
      const map = (n.cte_map as { map?: { key: string }[] } | undefined)?.map;
      for (const c of map ?? []) ctes.add(c.key);
      if (n.type === 'BASE_TABLE') nodes.push(n);
      if (n.type === 'TABLE_FUNCTION' && !isPureTableFunction(String((n.function as Node).function_name))) calls.push(n);
      const from = n.from_table as Node | undefined;
      if (n.type === 'SELECT_NODE' && from?.type === 'BASE_TABLE' && n.where_clause) wheres.set(from, n.where_clause);
    });
    const refs: TableRef[] = [];
    const kept: Node[] = [];
    for (const n of nodes) {
      // A name a WITH clause defines is the query's own, not a catalog table.
      if (n.schema_name === '' && n.catalog_name === '' && ctes.has(n.table_name as string)) {
        if (n.at_clause) throw invalid(`${String(n.table_name)} is a WITH query of the statement; AT applies to catalog tables only`);
        continue;
      }
      if (n.catalog_name !== '') throw invalid(`${String(n.catalog_name)}.${String(n.schema_name)}.${String(n.table_name)}: the catalog has no attached databases; name tables as schema.table`);
      const where = wheres.get(n);
      const names = [(n.alias as string) || (n.table_name as string)];
      refs.push({ schema: (n.schema_name as string) || 'main', table: n.table_name as string, at: atClause(n), filter: where === undefined ? undefined : { where, names } });
      kept.push(n);
    }
    return new Statement(parsed, refs, kept, calls);
  }

  /** The table function calls that may not run as written, each as a SELECT of all its rows. */
  async callsOf(run: ScalarSql): Promise<TableCall[]> {
    if (this.calls.length === 0) return [];
    const skeleton = JSON.parse(protectBig(await run('SELECT json_serialize_sql($1::VARCHAR) AS v', 'SELECT * FROM range(1)'))) as { statements: { node: Node }[] };
    const out: TableCall[] = [];
    for (const call of this.calls) {
      skeleton.statements[0]!.node.from_table = { ...call, alias: '', column_name_alias: [] };
      out.push({ name: String((call.function as Node).function_name), sql: await run('SELECT json_deserialize_sql($1::VARCHAR) AS v', restoreBig(JSON.stringify(skeleton))) });
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
      const { function: fn, with_ordinality: _ordinality, ...rest } = n;
      for (const k of Object.keys(n)) delete n[k];
      Object.assign(n, rest, { type: 'BASE_TABLE', alias: rest.alias || (fn as Node).function_name, schema_name: '', table_name: callNames[j], catalog_name: '', at_clause: null });
    });
    return run('SELECT json_deserialize_sql($1::VARCHAR) AS v', restoreBig(JSON.stringify(this.tree)));
  }
}

function walk(n: unknown, visit: (n: Node) => void): void {
  if (Array.isArray(n)) for (const x of n) walk(x, visit);
  else if (n !== null && typeof n === 'object') {
    visit(n as Node);
    for (const v of Object.values(n)) walk(v, visit);
  }
}

/** An AT clause as a reader's selector: VERSION => n (an id) or 'name' (a tag), TIMESTAMP => a time. */
function atClause(n: Node): SnapshotSelector | undefined {
  const at = n.at_clause as { unit: string; expr: Node } | null | undefined;
  if (!at) return undefined;
  const where = `AT (${at.unit} => …) on ${String(n.schema_name) || 'main'}.${String(n.table_name)}`;
  const value = constantOf(at.expr);
  if (value === undefined) throw invalid(`${where} takes a constant: a snapshot id or tag name for VERSION, a time for TIMESTAMP`);
  const unit = at.unit.toUpperCase();
  if (unit === 'VERSION') {
    if (typeof value === 'string' && !/^\d+$/.test(value)) return { tag: value };
    const id = Number(value);
    if (!Number.isSafeInteger(id) || id < 0) throw invalid(`${where}: ${String(value)} is not a snapshot id`);
    return { snapshot: id };
  }
  if (unit === 'TIMESTAMP') return { timestamp: String(value) };
  throw invalid(`${where}: AT takes VERSION or TIMESTAMP, not ${at.unit}`);
}

/** The value of a constant, or of a cast of one (TIMESTAMP '…'); undefined for anything else. */
function constantOf(e: Node): string | number | undefined {
  if (e.class === 'CONSTANT') {
    const v = e.value as { is_null: boolean; value: unknown };
    if (v.is_null) return undefined;
    const raw = v.value;
    if (typeof raw === 'string') return raw.startsWith(BIG) ? raw.slice(BIG.length) : raw;
    return typeof raw === 'number' ? raw : undefined;
  }
  if (e.class === 'CAST') return constantOf(e.child as Node);
  return undefined;
}
