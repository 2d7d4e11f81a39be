// What DuckDB prints for a value: its text as `SELECT x::VARCHAR` gives it, for the table view and CSV, and
// a JSON value that keeps it exact. The values come as catalog.sql hands them over (src/sql/values.ts:
// exact, and already DuckDB's text where JavaScript has no exact type), so what is left to print here is what
// the type decides: a DOUBLE 1 is "1.0" and an INTEGER 1 is "1", a FLOAT carries 9 digits at most, and a
// nested value quotes the strings inside it only where DuckDB does. The type is the column's, as DuckDB
// names it (node API's DuckDBType.toString: `STRUCT("a" INTEGER, "b" VARCHAR[])`, `MAP(VARCHAR, DOUBLE)`, …).

/** What printing needs to know of a type. */
export type Shape =
  | { kind: 'text' | 'integer' | 'boolean' | 'blob' }
  | { kind: 'float'; single: boolean }
  | { kind: 'list'; of: Shape }
  | { kind: 'struct'; fields: [string, Shape][] }
  | { kind: 'map'; key: Shape; value: Shape }
  | { kind: 'union'; members: [string, Shape][] };

const INTEGERS = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT', 'BIGNUM']);

/** The shape of a type named as DuckDB names it; a type this does not know prints as its text. */
export function shapeOf(type: string): Shape {
  const p = new TypeReader(type);
  const shape = p.type();
  return p.done() ? shape : { kind: 'text' };
}

class TypeReader {
  private at = 0;
  constructor(private readonly s: string) {}

  done(): boolean {
    return this.at === this.s.length;
  }

  type(): Shape {
    let shape = this.base();
    // A list (`T[]`) or an array (`T[3]`), as often as given.
    while (this.s[this.at] === '[') {
      this.at = this.s.indexOf(']', this.at) + 1;
      if (this.at === 0) this.at = this.s.length;
      shape = { kind: 'list', of: shape };
    }
    return shape;
  }

  private base(): Shape {
    const name = /^[A-Z_0-9]+(?: [A-Z_0-9]+)*/.exec(this.s.slice(this.at))?.[0] ?? '';
    this.at += name.length;
    if (this.s[this.at] !== '(') return name === 'DOUBLE' || name === 'FLOAT' ? { kind: 'float', single: name === 'FLOAT' } : { kind: INTEGERS.has(name) ? 'integer' : name === 'BOOLEAN' ? 'boolean' : name === 'BLOB' ? 'blob' : 'text' };
    this.at++;
    if (name === 'STRUCT' || name === 'UNION') {
      const fields: [string, Shape][] = [];
      while (this.s[this.at] !== ')' && !this.done()) {
        const field = this.quoted('"');
        this.at++; // the space
        fields.push([field, this.type()]);
        if (this.s.startsWith(', ', this.at)) this.at += 2;
      }
      this.at++;
      return name === 'STRUCT' ? { kind: 'struct', fields } : { kind: 'union', members: fields };
    }
    if (name === 'MAP') {
      const key = this.type();
      this.at += 2;
      const value = this.type();
      this.at++;
      return { kind: 'map', key, value };
    }
    // DECIMAL(18,3), ENUM('a', 'b''c'): printed as their text.
    while (this.s[this.at] !== ')' && !this.done()) {
      if (this.s[this.at] === "'") this.quoted("'");
      else this.at++;
    }
    this.at++;
    return { kind: 'text' };
  }

  /** A name in `q` quotes, a doubled quote standing for one. */
  private quoted(q: string): string {
    let out = '';
    for (this.at++; !this.done(); this.at++) {
      if (this.s[this.at] !== q) out += this.s[this.at];
      else if (this.s[this.at + 1] === q) out += q, this.at++;
      else break;
    }
    this.at++;
    return out;
  }
}

/** DuckDB's text of a value of `shape` (never NULL: the caller prints that). */
export function duckText(v: unknown, shape: Shape): string {
  switch (shape.kind) {
    case 'float':
      return floatText(v as number, shape.single);
    case 'blob':
      return blobText(v as Uint8Array);
    case 'list':
      return `[${(v as unknown[]).map((x) => nestedText(x, shape.of)).join(', ')}]`;
    case 'struct': {
      const o = v as Record<string, unknown>;
      return `{${shape.fields.map(([name, field]) => `${quotedText(name)}: ${nestedText(o[name], field)}`).join(', ')}}`;
    }
    case 'map':
      return `{${(v as { key: unknown; value: unknown }[]).map((e) => `${nestedText(e.key, shape.key)}=${nestedText(e.value, shape.value)}`).join(', ')}}`;
    case 'union': {
      const u = v as { tag: string; value: unknown };
      const member = shape.members.find(([tag]) => tag === u.tag)?.[1] ?? { kind: 'text' };
      return u.value === null ? 'NULL' : duckText(u.value, member);
    }
    default:
      return String(v);
  }
}

/** DuckDB's text of bytes: printable ASCII as itself; quotes, the backslash, control bytes and the rest as \xHH. */
function blobText(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b <= 0x1f || b === 0x22 || b === 0x27 || b === 0x5c || b >= 0x7f ? `\\x${b.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(b);
  return out;
}

/** A value inside a LIST, STRUCT or MAP: NULL as NULL, a scalar's text quoted where it would not read back. */
function nestedText(v: unknown, shape: Shape): string {
  if (v === null || v === undefined) return 'NULL';
  const text = duckText(v, shape);
  return NESTED.has(shape.kind) || !needsQuotes(text) ? text : quotedText(text);
}

// DuckDB's rule (NestedToVarcharCast): a scalar inside a nested value is quoted when it is empty, starts or
// ends with a space (a lone one counts as starting), reads as null, or holds a character of its syntax. A
// nested value inside one (a UNION counts as one) never is.
const NESTED = new Set<Shape['kind']>(['list', 'struct', 'map', 'union']);
const SYNTAX = /["'(),:=[\]{}]/;
const SPACE = /^[ \t\n\v\f\r]$/;
function needsQuotes(text: string): boolean {
  return text === '' || SPACE.test(text[0]!) || (text.length >= 2 && SPACE.test(text.at(-1)!)) || text.toLowerCase() === 'null' || SYNTAX.test(text);
}
const quotedText = (text: string) => `'${text.replace(/['\\]/g, '\\$&')}'`;

/**
 * DuckDB's text of a DOUBLE (or a FLOAT, with as few digits as single precision needs): the shortest digits
 * that read back as the same number, positional from 1e-4 up to below 1e16 (".0" on a whole number),
 * scientific outside with a two-digit exponent at least ("1e-05", "1e+16"); nan, inf, -inf, -0.0.
 */
export function floatText(x: number, single: boolean): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // Most doubles: JavaScript writes the same shortest digits positionally in this range.
  const size = Math.abs(x);
  if (!single && size >= 1e-4 && size < 1e16) {
    const text = String(x);
    return text.includes('.') ? text : `${text}.0`;
  }
  const [mantissa, exp] = (single ? shortestSingle(x) : x.toExponential()).split('e') as [string, string];
  const e = Number(exp);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  if (e < -4 || e >= 16) return `${sign}${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
  const whole = digits.slice(0, e + 1).padEnd(e + 1, '0');
  const fraction = digits.slice(e + 1);
  return `${sign}${whole}.${fraction === '' ? '0' : fraction}`;
}

/** A single-precision number's shortest digits that read back as it, in toExponential's form. */
function shortestSingle(x: number): string {
  for (let p = 1; p < 9; p++) {
    const candidate = x.toExponential(p - 1);
    if (Math.fround(Number(candidate)) === x) return candidate;
  }
  return x.toExponential(8);
}

/** The value as JSON: exact, and DuckDB's text wherever a JSON number would not read back as the value. */
export function jsonText(v: unknown, shape: Shape): string {
  if (v === null || v === undefined) return 'null';
  switch (shape.kind) {
    case 'integer': {
      // Past 2^53 a JSON number is read back as another integer by JavaScript (and by jq before 1.7).
      const n = typeof v === 'bigint' ? v : BigInt(v as number);
      return n >= -MAX_SAFE && n <= MAX_SAFE ? n.toString() : JSON.stringify(n.toString());
    }
    case 'float':
      // nan and inf are no JSON numbers; every finite one reads back exactly from its shortest digits.
      return Number.isFinite(v) ? floatText(v as number, shape.single) : JSON.stringify(floatText(v as number, shape.single));
    case 'boolean':
      return String(v);
    case 'list':
      return `[${(v as unknown[]).map((x) => jsonText(x, shape.of)).join(',')}]`;
    case 'struct': {
      const o = v as Record<string, unknown>;
      return `{${shape.fields.map(([name, field]) => `${JSON.stringify(name)}:${jsonText(o[name], field)}`).join(',')}}`;
    }
    case 'map':
      return `[${(v as { key: unknown; value: unknown }[]).map((e) => `{"key":${jsonText(e.key, shape.key)},"value":${jsonText(e.value, shape.value)}}`).join(',')}]`;
    case 'union': {
      const u = v as { tag: string; value: unknown };
      const member = shape.members.find(([tag]) => tag === u.tag)?.[1] ?? { kind: 'text' };
      return `{"tag":${JSON.stringify(u.tag)},"value":${jsonText(u.value, member)}}`;
    }
    default:
      return JSON.stringify(duckText(v, shape));
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
