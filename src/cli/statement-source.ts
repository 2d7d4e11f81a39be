// Where `strata sql` gets its statement and its parameters: the argument, a file (-f), or standard input (-);
// --params as JSON. A shell quotes a long statement badly, and a value spliced into a statement's text is the
// injection bound parameters exist to prevent.
import { readFile } from 'node:fs/promises';
import type { SqlParam, SqlParams } from '../sql/params.js';
import { UsageError } from './context.js';

/** The statement: the argument as given, `-` for all of standard input, or the text of --file. */
export async function statementText(argument: string | undefined, file: string | undefined, stdin: NodeJS.ReadableStream = process.stdin): Promise<string> {
  if (argument !== undefined && file !== undefined) throw new UsageError('give the statement as an argument or with --file, not both');
  if (file !== undefined) {
    return readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
      throw new UsageError(e.code === 'ENOENT' ? `--file ${file}: there is no such file` : `--file ${file} cannot be read: ${e.message}`);
    });
  }
  if (argument === undefined) throw new UsageError("give a statement: strata sql 'SELECT …', strata sql --file query.sql, or strata sql - to read it from standard input");
  if (argument !== '-') return argument;
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

const KINDS = 'null, true/false, numbers and strings';

function param(where: string, v: unknown): SqlParam {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') {
    // JSON.parse has already rounded a whole number past 2^53: refused rather than bound as another number.
    if (Number.isInteger(v) && !Number.isSafeInteger(v)) throw new UsageError(`--params ${where} is a whole number past 2^53, which JSON numbers do not hold exactly: give it as a string and cast it ($1::BIGINT)`);
    return v;
  }
  throw new UsageError(`--params ${where} is ${Array.isArray(v) ? 'a list' : 'an object'}; a parameter's value is one of ${KINDS} (cast text in the statement: $1::DATE)`);
}

/** --params: a JSON array for $1, $2, … (or ?), a JSON object for $name. */
export function cliParams(text: string | undefined): SqlParams | undefined {
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--params is not JSON (${(e as Error).message}): give a JSON array for $1, $2, … such as '[7, "Ada"]', or an object for $name such as '{"id": 7}'`);
  }
  if (Array.isArray(v)) return v.map((x, i) => param(`$${i + 1}`, x));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, param(`$${k}`, x)]));
  throw new UsageError(`--params is ${JSON.stringify(v)}: give a JSON array for $1, $2, … or an object for $name`);
}
