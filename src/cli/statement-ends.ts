// Where the statements typed into `strata shell` end: at a ";" outside a string ('…', E'…'), a quoted name
// ("…"), a dollar-quoted string ($tag$…$tag$) and a comment (-- to the line's end, /* … */), as DuckDB's own
// shell decides that a statement is whole before it runs it. Only the ends are found here; each statement is
// DuckDB's to parse.

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
    } else if (ch === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (ch === '$') {
      const tag = /^\$([A-Za-z_]\w*)?\$/.exec(text.slice(i));
      if (tag === null || (i > 0 && /\w/.test(text[i - 1]!))) i++;
      else {
        const end = text.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? n : end + tag[0].length;
      }
    } else if (ch === ';') {
      const statement = text.slice(start, i + 1).trim();
      if (statement !== ';') whole.push(statement);
      start = ++i;
    } else i++;
  }
  return { whole, rest: text.slice(start) };
}
