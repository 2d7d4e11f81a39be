// Where the statements typed into `strata shell` end: at a ";" outside a string ('…', E'…'), a quoted name
// ("…"), a dollar-quoted string ($tag$…$tag$) and a comment (as DuckDB reads them: sql/comments.ts), as
// DuckDB's own shell decides that a statement is whole before it runs it. Only the ends are found here; each
// statement is DuckDB's to parse. A statement of comments alone, and comments after the last one, are none.
import { afterComments } from '../sql/comments.js';

/** The statements `text` holds whole (each with its ";"), and what follows the last one (a statement begun). */
export function splitStatements(text: string): { whole: string[]; rest: string } {
  const whole: string[] = [];
  let start = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"') {
      // A quote doubled stays inside; an E'…' string also escapes with a backslash.
      const escapes = ch === "'" && i > 0 && /[eE]/.test(text[i - 1]!) && (i < 2 || !/\w/.test(text[i - 2]!));
      i++;
      while (i < n && !(text[i] === ch && text[i + 1] !== ch)) i += text[i] === ch || (escapes && text[i] === '\\') ? 2 : 1;
      i++;
    } else if ((ch === '-' && text[i + 1] === '-') || (ch === '/' && text[i + 1] === '*')) {
      i = afterComments(text, i);
    } else if (ch === '$') {
      const tag = /^\$([A-Za-z_]\w*)?\$/.exec(text.slice(i));
      if (tag === null || (i > 0 && /\w/.test(text[i - 1]!))) i++;
      else {
        const end = text.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? n : end + tag[0].length;
      }
    } else if (ch === ';') {
      const statement = text.slice(start, i + 1).trim();
      if (afterComments(statement) < statement.length - 1) whole.push(statement);
      start = ++i;
    } else i++;
  }
  const rest = text.slice(start);
  return { whole, rest: afterComments(rest) === rest.length ? '' : rest };
}
