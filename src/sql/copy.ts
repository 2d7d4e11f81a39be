// COPY through catalog.sql, within a statement's reach (decision 0030): COPY (query) TO 'file' and COPY t
// [(columns)] TO 'file' run their rows as a SELECT (the read path: the lake at the statement's snapshot, ATs
// and catalog relations included) into a DuckDB database file in the statement's scratch directory (every
// type as it was); a host instance, which reaches what the caller allowed (hostWrites) and that directory and
// nothing of the lake, then copies them to the file with the statement's own options — DuckDB's COPY, so
// FORMAT parquet, csv or json, HEADER, DELIMITER, PARTITION_BY … act as DuckDB's. COPY t [(columns)] FROM
// 'file' is a load: a host instance runs DuckDB's COPY FROM into an empty table of t's columns at the head (its
// column list, defaults, NOT NULLs and options acting as DuckDB's), and one commit registers the rows as t's
// data files (host files read as hostFiles allows). Of the statement's text only its parts run: the query as a SELECT, the table's name in one, the
// path as a string literal, the options after it in a COPY that is one statement, as the caller's was.
import type { DuckDBConnection, DuckDBResultReader } from '@duckdb/node-api';
import type { SnapshotId } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import { type HostReach, run } from './engine.js';
import { afterComments } from './comments.js';
import { hostRun } from './host-files.js';
import { randomHex } from '../random.js';
import { createTable } from './mirror.js';
import { committing, authorship, noFiles, type PlaneContext, selectInto, type SqlOptions, type SqlResult, sqlOptions } from './query.js';
import { ident, literal } from './sql-text.js';
import { DEFAULT_TARGET_FILE_SIZE, writeRows } from './write-files.js';

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

/** Whether a statement is a COPY (comments before it aside): DuckDB's planner cannot plan one without reaching its file. */
export const isCopy = (text: string) => /^COPY\b/i.test(text.slice(afterComments(text)));

/** A COPY's parts: where its rows come from or go, the file, and its options as written. */
type CopyParts = ({ direction: 'to'; query: string } | { direction: 'from'; table: string; columns: string }) & { path: string; options: string };

/** A name as SQL writes one: plain or double-quoted, qualified or not. */
const NAME = /^\s*((?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)(?:\s*\.\s*(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*))?)/;
/** A column list after a table's name. */
const COLUMNS = /^\s*(\(\s*(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)(?:\s*,\s*(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*))*\s*\))/;

async function parts(text: string, parse: (sql: string) => Promise<boolean>): Promise<CopyParts> {
  const usage = "COPY (query) TO 'file' [(options)], COPY table [(columns)] TO 'file' [(options)] or COPY table [(columns)] FROM 'file' [(options)]";
  let rest = text.slice(afterComments(text) + 'COPY'.length).trimStart();
  let source: { query: string } | { table: string; columns: string };
  if (rest.startsWith('(')) {
    // The query: the shortest text from there to a ")" that DuckDB parses as one SELECT in parentheses (every
    // shorter one is cut inside a string, a comment or a parenthesis; one cut inside a -- comment comments
    // out the parenthesis that closes it, as it does in the statement).
    let query: string | undefined;
    for (let close = rest.indexOf(')'); close !== -1 && query === undefined; close = rest.indexOf(')', close + 1)) {
      if (await parse(rest.slice(1, close))) (query = rest.slice(1, close)), (rest = rest.slice(close + 1));
    }
    if (query === undefined) throw invalid(`the query in COPY ( … ) is not one SELECT; sql() runs ${usage}`);
    source = { query };
  } else {
    const name = NAME.exec(rest);
    if (name === null) throw invalid(`COPY names no table or query; sql() runs ${usage}`);
    rest = rest.slice(name[0].length);
    const columns = COLUMNS.exec(rest);
    if (columns !== null) rest = rest.slice(columns[0].length);
    source = { table: name[1]!, columns: columns?.[1] ?? '' };
  }
  const direction = /^\s*(TO|FROM)\s*/i.exec(rest);
  if (direction === null) throw invalid(`COPY without TO or FROM; sql() runs ${usage}`);
  rest = rest.slice(direction[0].length);
  const file = /^'((?:[^']|'')*)'/.exec(rest);
  if (file === null) throw invalid(`COPY … ${direction[1]!.toUpperCase()} takes the file as a string literal ('out.parquet'); sql() runs ${usage}`);
  const options = rest.slice(file[0].length).trim().replace(/;\s*$/, '');
  const path = file[1]!.replaceAll("''", "'");
  if (direction[1]!.toUpperCase() === 'TO') {
    return { direction: 'to', query: 'query' in source ? source.query : `SELECT ${source.columns === '' ? '*' : source.columns.slice(1, -1)} FROM ${source.table}`, path, options };
  }
  // DuckDB's parser refuses COPY (query) FROM before this: a query is copied TO a file.
  if ('query' in source) throw new Error('COPY (query) FROM passed the parser');
  return { direction: 'from', ...source, path, options };
}

/** A COPY statement through sql(): its rows to a host file, or a host file's rows into a table (one commit). */
export async function copy(plane: PlaneContext, text: string, given: SqlOptions | undefined): Promise<SqlResult> {
  const opts = sqlOptions(given);
  const parse = async (query: string) => {
    const tree = JSON.parse(await plane.engine.textFunction('SELECT json_serialize_sql($1::VARCHAR) AS v', `SELECT * FROM (${query})`)) as { error: boolean; statements?: unknown[] };
    return !tree.error && tree.statements?.length === 1;
  };
  if (!(await oneStatement(plane, text))) throw invalid('sql() runs one statement at a time');
  const copying = await parts(text, parse);
  // Writing a host file is a reach of its own: a caller (the CLI on a person's machine) may read them and not write.
  const [reach, option] = copying.direction === 'to' ? [plane.hostWrites, 'hostWrites'] : [plane.hostFiles, 'hostFiles'];
  if (reach === false) {
    throw invalid(
      `COPY … ${copying.direction === 'to' ? 'TO writes' : 'FROM reads'} the host file ${copying.path}, outside the lake: a caller opts in with ${option} (sql(q, { ${option}: ['<directory>'] }), or Catalog.open's sql.${option})`,
    );
  }
  const held = plane.engine.path('copy');
  const alias = ident(`copied_${randomHex(6)}`);
  if (copying.direction === 'to') {
    if (opts.author !== undefined || opts.message !== undefined) throw invalid('COPY … TO commits nothing: author and message name a commit');
    const { meta, count } = await selectInto(plane, copying.query, opts, held);
    await plane.engine.withHost(reach, async (c) => {
      await run(() => c.run(`ATTACH ${literal(held)} AS ${alias} (READ_ONLY)`));
      await hostRun(`COPY … TO '${copying.path}'`, reach, () => runOne(c, `COPY (SELECT * FROM ${alias}.main.rows) TO ${literal(copying.path)} ${copying.options}`), 'hostWrites');
    });
    return { rows: [{ Count: BigInt(count) }], columns: [{ name: 'Count', type: 'BIGINT' }], ...meta };
  }
  return copyFrom(plane, copying, opts, reach, held, alias);
}

async function copyFrom(plane: PlaneContext, copying: Extract<CopyParts, { direction: 'from' }>, opts: SqlOptions, reach: HostReach, held: string, alias: string): Promise<SqlResult> {
  if (opts.at !== undefined) throw invalid('sql() at picks the snapshot a SELECT reads; COPY … FROM writes at the head — leave at out');
  if (opts.params !== undefined) throw invalid('COPY … FROM takes no params: its values come from the file');
  plane.writable();
  const named = JSON.parse(await plane.engine.textFunction('SELECT json_serialize_sql($1::VARCHAR) AS v', `SELECT * FROM ${copying.table}`)) as { statements: { node: { from_table: { schema_name: string; table_name: string } } }[] };
  const { schema_name: schemaName, table_name: table } = named.statements[0]!.node.from_table;
  const schema = schemaName || 'main';
  const ctx = committing(plane, authorship(opts));
  const r = await ctx.reads.reader();
  try {
    const info = await r.table(schema, table);
    const loaded = await plane.engine.withHost(reach, (c) =>
      hostRun(`COPY ${schema}.${table} FROM '${copying.path}'`, reach, async () => {
        // DuckDB's COPY FROM into an empty table of the target's columns, in a database file the executor then reads.
        await c.run(`ATTACH ${literal(held)} AS ${alias}`);
        await c.run(createTable(`${alias}.main.target`, info));
        const result = await runOne(c, `COPY ${alias}.main.target ${copying.columns} FROM ${literal(copying.path)} ${copying.options}`);
        await c.run(`DETACH ${alias}`);
        return Number(result.getRows()[0]![0]);
      }),
    );
    const columns = info.columns.map((col) => ident(col.name)).join(', ');
    const written = await ctx.engine.withConnection(async (c) => {
      await run(() => c.run(`ATTACH ${literal(held)} AS ${alias} (READ_ONLY)`));
      try {
        return await writeRows(ctx, c, { schema, table, info, targetFileSize: DEFAULT_TARGET_FILE_SIZE, onProgress: undefined, message: `COPY ${schema}.${table} FROM ${copying.path}` }, `SELECT ${columns} FROM ${alias}.main.target`);
      } finally {
        await c.run(`DETACH ${alias}`).catch(() => undefined);
      }
    });
    return { rows: [{ Count: BigInt(loaded) }], columns: [{ name: 'Count', type: 'BIGINT' }], snapshot: written.snapshot ?? (r.snapshot.id as SnapshotId), files: noFiles() };
  } finally {
    await r.close();
  }
}

/**
 * Runs `sql`, a COPY of ours ending in the caller's options, only if DuckDB reads it as one statement: options
 * that close it and start another (a ";", a comment that swallows ours) run nothing.
 */
async function runOne(c: DuckDBConnection, sql: string): Promise<DuckDBResultReader> {
  const pieces = await c.extractStatements(sql);
  if (pieces.count !== 1) throw invalid('the options of a COPY end the COPY and begin another statement; sql() runs one statement at a time');
  return c.runAndReadAll(sql);
}

/** Whether `text` is one statement (a COPY's options are run in a statement of ours: nothing may follow them). */
async function oneStatement(plane: PlaneContext, text: string): Promise<boolean> {
  return plane.engine.withConnection(async (c) => (await run(() => c.extractStatements(text))).count === 1);
}
