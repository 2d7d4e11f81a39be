// Host files, for a caller that opted in (sql(q, { hostFiles }) or Catalog.open({ sql: { hostFiles } })), are
// loaded first (decision 0030): an instance that reaches them and nothing of the lake runs the statement's
// call of a file reader (read_csv('orders.csv'), …) and writes its rows as Parquet into the statement's
// scratch directory; the statement then reads that Parquet where it called the reader. So the lake's engine
// never reaches a host file, the host instance never the lake's files, and the plan of a write holds a
// read_parquet, which DuckDB can serialise (read_csv's and read_json's bind data cannot be:
// "CSVReaderSerialize not implemented").
import type { DuckDBConnection } from '@duckdb/node-api';
import { StrataError } from '../errors.js';
import { duckError, run, type HostReach, type Session } from './engine.js';
import { ident, literal } from './sql-text.js';
import { protectBig, type ScalarSql } from './statement.js';

/** A host call's rows, loaded: the Parquet file holding them and its columns, named and typed as DuckDB has them. */
export interface LoadedRows {
  local: string;
  columns: { name: string; type: string }[];
}

/**
 * The rows of `call` (`SELECT * FROM <a file reader's call>`) loaded into the statement's scratch directory by
 * an instance reaching `reach`.
 */
export async function loadHostRows(session: Session, reach: HostReach, call: string): Promise<LoadedRows> {
  const local = `${session.path('host')}.parquet`;
  return session.withHost(reach, async (c) => {
    await hostRun(call, reach, () => c.run(`COPY (${call}) TO ${literal(local)} (FORMAT parquet)`));
    return { local, columns: await columnsOf(c, `SELECT * FROM read_parquet(${literal(local)})`) };
  });
}

/** The columns of `select` as DuckDB names and types them (its DESCRIBE): what rows read in a statement's place are planned as. */
export async function columnsOf(c: DuckDBConnection, select: string): Promise<LoadedRows['columns']> {
  const described = (await run(() => c.runAndReadAll(`DESCRIBE ${select}`))).getRowObjectsJS() as { column_name: string; column_type: string }[];
  return described.map((d) => ({ name: d.column_name, type: d.column_type }));
}

/** The scan of loaded rows where the statement called their reader. */
export const loadedScan = (rows: LoadedRows) => `SELECT * FROM read_parquet(${literal(rows.local)})`;

/** An empty table shaped as the loaded rows, named `name`: what a write is planned over in their place. */
export const loadedShape = (name: string, rows: Pick<LoadedRows, 'columns'>) => `CREATE TEMP TABLE ${ident(name)} (${rows.columns.map((c) => `${ident(c.name)} ${c.type}`).join(', ')})`;

/** The failures of a host read or write, said as what the caller asked for: no such file is the caller's, not a missing lake file. */
export async function hostRun<T>(call: string, reach: HostReach, work: () => Promise<T>, option: 'hostFiles' | 'hostWrites' = 'hostFiles'): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (!(e instanceof Error)) throw e;
    const missing = /No files found that match the pattern "([^"]+)"/.exec(e.message);
    if (missing) throw new StrataError('INVALID_ARGUMENT', `${call}: there is no file ${missing[1]} (relative paths are from ${process.cwd()})`, { cause: e });
    const refused = /Permission Error: Cannot access (?:file|directory) "([^"]*)"/.exec(e.message);
    if (refused && reach !== true) {
      throw new StrataError('INVALID_ARGUMENT', `${call}: ${refused[1]} is not under the directories ${option} allows (${reach.join(', ')})`, { cause: e });
    }
    throw duckError(e);
  }
}

/**
 * The call of a table function that starts at index `at` of `text`: the shortest text from there that DuckDB's
 * parser reads as one table function (every shorter one ending in ")" is cut inside a string, a comment or
 * a parenthesis, which the parser refuses). Undefined when none does.
 */
export async function callAt(text: string, at: number, parse: ScalarSql): Promise<{ end: number; name: string; sql: string } | undefined> {
  for (let close = text.indexOf(')', at); close !== -1; close = text.indexOf(')', close + 1)) {
    const sql = `SELECT * FROM ${text.slice(at, close + 1)}`;
    const parsed = JSON.parse(protectBig(await parse('SELECT json_serialize_sql($1::VARCHAR) AS v', sql))) as {
      error: boolean;
      statements?: { node: { type: string; from_table?: { type: string; alias: string; function?: { function_name: string } } } }[];
    };
    const from = parsed.error ? undefined : parsed.statements?.length === 1 ? parsed.statements[0]!.node.from_table : undefined;
    if (from?.type === 'TABLE_FUNCTION' && from.alias === '' && from.function !== undefined) return { end: close + 1, name: from.function.function_name, sql };
  }
  return undefined;
}
