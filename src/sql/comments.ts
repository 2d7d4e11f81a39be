// SQL comments as DuckDB reads them: `--` to the end of the line (a "\n" or a "\r"), `/* … */` nested (a
// comment opened inside one closes before the one around it does). Whoever finds where a statement or one of
// its parts begins skips them by these rules, or it finds text DuckDB does not read as code.

/** Where the code after `from` begins in `text`: past whitespace and comments (the end of `text` if none follows). */
export function afterComments(text: string, from = 0): number {
  let i = from;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text.startsWith('--', i)) {
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
    } else if (text.startsWith('/*', i)) {
      let depth = 0;
      do {
        if (text.startsWith('/*', i)) (depth++, (i += 2));
        else if (text.startsWith('*/', i)) (depth--, (i += 2));
        else i++;
      } while (depth > 0 && i < text.length);
    } else return i;
  }
}
