// Where the statements typed into `strata shell` end: at a ";" outside a string ('…', E'…'), a quoted name
// ("…"), a dollar-quoted string ($tag$…$tag$) and a comment (as DuckDB reads them: sql/top-level.ts), as
// DuckDB's own shell decides that a statement is whole before it runs it. Only the ends are found here; each
// statement is DuckDB's to parse. A statement of comments alone, and comments after the last one, are none.
import { afterComments } from '../sql/comments.js';
import { pastQuoted } from '../sql/top-level.js';

/** The statements `text` holds whole (each with its ";"), and what follows the last one (a statement begun). */
export function splitStatements(text: string): { whole: string[]; rest: string } {
  const whole: string[] = [];
  let start = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const past = pastQuoted(text, i);
    if (past > i) i = past;
    else if (text[i] === ';') {
      const statement = text.slice(start, i + 1).trim();
      if (afterComments(statement) < statement.length - 1) whole.push(statement);
      start = ++i;
    } else i++;
  }
  const rest = text.slice(start);
  return { whole, rest: afterComments(rest) === rest.length ? '' : rest };
}
