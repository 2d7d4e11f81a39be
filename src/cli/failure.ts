// What a failed command says to a person: never a stack trace. A StrataError is its code and message; a
// usage mistake is USAGE (exit 2); anything else is an error no code of Strata's foresaw — a bug — and says
// so, with what to do about it. STRATA_DEBUG=1 adds where it happened, for the report.
import { StrataError } from '../errors.js';
import { UsageError } from './context.js';

export interface Failure {
  code: string;
  message: string;
  /** 1: the command failed; 2: the command line is wrong. */
  exit: 1 | 2;
}

export function failureOf(e: unknown): Failure {
  if (e instanceof UsageError) return { code: 'USAGE', message: e.message, exit: 2 };
  if (e instanceof StrataError) return { code: e.code, message: e.message, exit: 1 };
  const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  const where = process.env.STRATA_DEBUG && e instanceof Error && e.stack ? `\n${e.stack}` : '';
  return {
    code: 'INTERNAL',
    message:
      `${what} — an error Strata did not expect, which is a bug: please report it with the command that failed ` +
      `(run it again with STRATA_DEBUG=1 to add where it happened)${where}`,
    exit: 1,
  };
}
