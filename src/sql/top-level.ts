// A statement's text as DuckDB's lexer sees it, as far as finding its parts needs: strings ('…', E'…'),
// quoted names ("…"), dollar-quoted strings ($tag$…$tag$) and comments (comments.ts) hold no code, and a
// word inside parentheses or a CASE … END belongs to the expression around it, not to the statement.
import { afterComments } from './comments.js';

// A name as DuckDB's lexer reads one: a letter (any beyond ASCII too), then letters, digits, "_" and "$" —
// so `é$$` is a name, and `$é$` opens a dollar-quoted string.
const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_PART = /[\w$\u0080-\uffff]/;

/** Where the string, quoted name, dollar-quoted string or comment that starts at `i` ends; `i` if none does. */
export function pastQuoted(text: string, i: number): number {
  const ch = text[i];
  if (ch === "'" || ch === '"') {
    // A quote doubled stays inside; an E'…' string also escapes with a backslash.
    const escapes = ch === "'" && i > 0 && /[eE]/.test(text[i - 1]!) && (i < 2 || !/\w/.test(text[i - 2]!));
    let j = i + 1;
    while (j < text.length && !(text[j] === ch && text[j + 1] !== ch)) j += text[j] === ch || (escapes && text[j] === '\\') ? 2 : 1;
    return Math.min(j + 1, text.length);
  }
  if ((ch === '-' && text[i + 1] === '-') || (ch === '/' && text[i + 1] === '*')) return afterComments(text, i);
  if (ch === '$' && !(i > 0 && IDENT_PART.test(text[i - 1]!))) {
    const tag = /^\$([A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/.exec(text.slice(i, i + 256));
    if (tag === null) return i;
    const end = text.indexOf(tag[0], i + tag[0].length);
    return end < 0 ? text.length : end + tag[0].length;
  }
  return i;
}

/** A word of the statement itself, upper-cased, and where it lies. */
export interface Word {
  word: string;
  start: number;
  end: number;
}

/**
 * The code of `text` as tokens: each word (upper-cased; a named parameter's name, $where, is a value and none)
 * and each other character that is not space, outside strings, quoted names and comments.
 */
function* codeTokens(text: string): Generator<Word> {
  for (let i = 0; i < text.length; ) {
    const past = pastQuoted(text, i);
    if (past > i) {
      i = past;
      continue;
    }
    if (IDENT_START.test(text[i]!)) {
      let end = i + 1;
      while (end < text.length && IDENT_PART.test(text[end]!)) end++;
      if (text[i - 1] !== '$') yield { word: text.slice(i, end).toUpperCase(), start: i, end };
      i = end;
    } else {
      if (!/\s/.test(text[i]!)) yield { word: text[i]!, start: i, end: i + 1 };
      i++;
    }
  }
}

/** Whether `text` holds `token` (a word, upper-case, or a character such as "?") as code, at any depth. */
export const holdsToken = (text: string, token: string): boolean => {
  for (const t of codeTokens(text)) if (t.word === token) return true;
  return false;
};

/**
 * The words of `text` outside parentheses and CASE … END, and each "," and ";" there (as words of their own):
 * the keywords that divide a statement into its clauses, among the names and operators between them.
 */
export function topLevelWords(text: string): Word[] {
  const out: Word[] = [];
  let parens = 0;
  let cases = 0;
  for (const t of codeTokens(text)) {
    if (t.word === '(' || t.word === '[') parens++;
    else if (t.word === ')' || t.word === ']') parens--;
    else if (parens > 0) continue;
    else if (t.word === 'CASE') cases++;
    else if (t.word === 'END' && cases > 0) cases--;
    else if (cases === 0 && (IDENT_START.test(t.word[0]!) || t.word === ';' || t.word === ',')) out.push(t);
  }
  return out;
}
