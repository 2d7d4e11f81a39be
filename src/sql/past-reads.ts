// The tables an INSERT … SELECT or a CREATE TABLE … AS reads at a snapshot of their own (INSERT INTO t
// SELECT * FROM t AT (VERSION => 3)): the restore a user writes in SQL. DuckDB's planner takes no AT over the
// mirror ("does not support time travel"), and its parser serialises no statement that writes, but it does
// serialise the query such a statement ends with: the text after `INSERT INTO name [(columns)]` or `CREATE
// [OR REPLACE] TABLE [IF NOT EXISTS] name [(columns)] AS`, heads that hold names and nothing else (no string,
// no comment: the query's text is the statement's own from there). Its parse gives each reference with an AT
// and where it starts; the reference is the shortest text from there, up to a ")", that DuckDB parses as that
// table with an AT.
import { StrataError } from '../errors.js';
import { protectBig, type ScalarSql, Statement, type TableRef } from './statement.js';
import { charIndex } from './statement-errors.js';

/** A reference with an AT in a statement's text: where it is, what it names, and the alias it keeps. */
export interface PastRead {
  start: number;
  end: number;
  ref: TableRef;
  alias: string;
}

interface Parsed {
  error: boolean;
  statements?: { node: Record<string, unknown> }[];
}

/** A name as SQL writes one, plain or double-quoted. */
const IDENT = '(?:"(?:[^"]|"")+"|[A-Za-z_][\\w$]*)';
const NAME = `${IDENT}(?:\\s*\\.\\s*${IDENT}){0,2}`;
const COLUMNS = `(?:\\(\\s*${IDENT}(?:\\s*,\\s*${IDENT})*\\s*\\)\\s*)?`;
/** The head of an INSERT, a CREATE TABLE … AS or a CREATE VIEW … AS, up to where its query starts. */
const HEAD = new RegExp(
  `^\\s*(?:INSERT\\s+(?:OR\\s+(?:REPLACE|IGNORE)\\s+)?INTO\\s+${NAME}\\s*(?:AS\\s+${IDENT}\\s*)?${COLUMNS}(?:BY\\s+(?:NAME|POSITION)\\s+)?` +
    `|CREATE\\s+(?:OR\\s+REPLACE\\s+)?(TABLE|VIEW)\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?${NAME}\\s*${COLUMNS}AS\\s+)`,
  'i',
);

/** The query an INSERT, a CREATE TABLE … AS or a CREATE VIEW … AS ends with: where it starts, its text and DuckDB's parse of it. */
export interface EndingQuery {
  from: number;
  query: string;
  statement: Statement;
  /** CREATE OR REPLACE TABLE: the table it replaces may be one it reads. */
  replaces: boolean;
  /** CREATE VIEW … AS: the query is the view's definition, which is read at the snapshot of each query of the view. */
  view: boolean;
}

const parser = (run: ScalarSql) => async (sql: string) => JSON.parse(protectBig(await run('SELECT json_serialize_sql($1::VARCHAR) AS v', sql))) as Parsed;

/** The query `text` ends with, if it is an INSERT, a CREATE TABLE … AS or a CREATE VIEW … AS that ends with one SELECT. */
export async function endingQuery(text: string, run: ScalarSql): Promise<EndingQuery | undefined> {
  const head = HEAD.exec(text);
  if (head === null) return undefined;
  const from = head[0].length;
  const query = text.slice(from);
  const parsed = await parser(run)(query);
  if (parsed.error || parsed.statements?.length !== 1) return undefined;
  const statement = Statement.of(parsed as never);
  await statement.timeExpressions(run);
  return { from, query, statement, replaces: /^\s*CREATE\s+OR\s+REPLACE\b/i.test(head[0]), view: head[1]?.toUpperCase() === 'VIEW' };
}

/**
 * Every table reference with an AT in the query an INSERT or a CREATE TABLE … AS ends with, in order; an empty
 * list for any other statement, or one whose query has none (then DuckDB's refusal stands).
 */
export async function pastReads(text: string, run: ScalarSql): Promise<PastRead[]> {
  const ending = await endingQuery(text, run);
  // A view's AT stays its own, and DuckDB's refusal of it stands.
  if (ending === undefined || ending.view) return [];
  const { from, query, statement } = ending;
  const parse = parser(run);
  const out: PastRead[] = [];
  for (const [i, node] of statement.atNodes()) {
    const ref = statement.refs[i]!;
    const start = from + charIndex(query, Number(node.query_location));
    out.push({ start, end: await referenceEnd(text, start, ref, parse), ref, alias: String(node.alias || '') });
  }
  return out;
}

/** Where the reference that starts at `start` ends: the shortest text up to a ")" that parses as it, with its AT. */
async function referenceEnd(text: string, start: number, ref: TableRef, parse: (sql: string) => Promise<Parsed>): Promise<number> {
  for (let close = text.indexOf(')', start); close !== -1; close = text.indexOf(')', close + 1)) {
    const parsed = await parse(`SELECT * FROM ${text.slice(start, close + 1)}`);
    const from = parsed.error ? undefined : (parsed.statements?.[0]?.node.from_table as Record<string, unknown> | undefined);
    if (from?.type === 'BASE_TABLE' && from.at_clause && String(from.table_name) === ref.table) return close + 1;
  }
  throw new StrataError('INVALID_ARGUMENT', `the AT clause of ${ref.schema}.${ref.table} could not be told apart in the statement; write it as table AT (VERSION => n)`);
}
