// Errors that point into what the caller wrote. DuckDB points into the text it ran ("LINE 1: …" and a
// caret), and for a SELECT that text is the catalog's rewrite, its tables replaced by scans of local files:
// engine.ts drops that pointer, and these functions point into the caller's own statement instead — at the
// position DuckDB's planner reports for a statement it planned as written, or, for an error met while the
// rewrite ran, at the name the error is about, found where the caller's statement uses it.
import { StrataError } from '../errors.js';

/** The index in `text` of the UTF-8 byte offset `bytes` (DuckDB counts positions in bytes). */
export function charIndex(text: string, bytes: number): number {
  return Buffer.from(text, 'utf8').subarray(0, bytes).toString('utf8').length;
}

/** The line of `text` holding index `at`, and a caret under it, as DuckDB points into a statement. */
export function pointer(text: string, at: number): string {
  const start = text.lastIndexOf('\n', at - 1) + 1;
  const endAt = text.indexOf('\n', at);
  const line = text.slice(start, endAt === -1 ? text.length : endAt);
  const number = text.slice(0, start).split('\n').length;
  // A long line is cut around the position, as DuckDB does; a short one is shown whole.
  const from = Math.max(0, Math.min(at - start - 40, line.length - 100));
  const shown = `${from > 0 ? '…' : ''}${line.slice(from, from + 100)}${line.length > from + 100 ? '…' : ''}`;
  const prefix = `LINE ${number}: `;
  return `${prefix}${shown}\n${' '.repeat(prefix.length + (from > 0 ? 1 : 0) + at - start - from)}^`;
}

/** An error about the statement `text` at byte `position` (DuckDB's), pointing there. */
export function errorAt(code: 'INVALID_ARGUMENT' | 'NOT_FOUND', message: string, text: string, position: number | undefined, cause?: unknown): StrataError {
  const at = position === undefined ? undefined : charIndex(text, position);
  return new StrataError(code, at === undefined ? `${message}\nin: ${shortened(text)}` : `${message}\n${pointer(text, at)}`, cause === undefined ? {} : { cause });
}

/** The statement as a message quotes it: whole when short, its start otherwise. */
function shortened(text: string): string {
  const flat = text.trim().replace(/\s+/g, ' ');
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

/**
 * `e`, an error DuckDB met running the catalog's rewrite of the SELECT `text`, said about `text`: pointing at
 * the name it is about where `text` uses it, or quoting `text` when the name cannot be found there.
 */
export async function pointedError(e: StrataError, text: string, parse: (text: string) => Promise<unknown>): Promise<StrataError> {
  const name = nameOf(e.message);
  const at = name === undefined ? undefined : whereUsed(await parse(text), name);
  return errorAt('INVALID_ARGUMENT', e.message, text, at, e.cause ?? e);
}

/** The name a binder or catalog error of DuckDB's is about: a column, a function, a table. */
function nameOf(message: string): string | undefined {
  const m =
    /Referenced column "([^"]+)" not found/.exec(message) ??
    /does not have a column named "([^"]+)"/.exec(message) ??
    /Function with name "?([^"\s(]+)"? does not exist/.exec(message) ??
    /Referenced table "([^"]+)" not found/.exec(message);
  return m?.[1];
}

interface Node {
  [k: string]: unknown;
}

/** The byte position of the first use of `name` (a column, function or table name) in a statement as DuckDB's parser gives it (json_serialize_sql). */
function whereUsed(parsed: unknown, name: string): number | undefined {
  if ((parsed as Node).error === true) return undefined;
  let found: number | undefined;
  const visit = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(visit);
    if (n === null || typeof n !== 'object') return;
    const node = n as Node;
    const names =
      node.class === 'COLUMN_REF' ? (node.column_names as string[]) : node.class === 'FUNCTION' ? [node.function_name as string] : node.type === 'BASE_TABLE' ? [node.table_name as string] : [];
    const location = node.query_location;
    if (names.includes(name) && typeof location === 'number' && (found === undefined || location < found)) found = location;
    for (const v of Object.values(node)) visit(v);
  };
  visit(parsed);
  return found;
}
