// Which of a table's files a query can skip: the conjuncts of the WHERE clause of a SELECT that reads the
// table alone (column op constant, BETWEEN, IN, IS [NOT] NULL), tested against each file's column statistics.
// Conservative by construction: anything not understood exactly — an OR, a cast of the column, a constant of
// another kind than the column, a type whose text order is not its value order, a file or column without
// statistics — keeps the file. A skipped file must hold no row the predicate accepts.
import type { ColumnStats } from '../../keys/file-column-stats.js';
import type { ColumnInfo } from '../read/records.js';

interface Node {
  [k: string]: unknown;
}

type Kind = 'int' | 'float' | 'decimal' | 'text' | 'date';

type Test =
  | { column: string; op: 'eq' | 'lt' | 'le' | 'gt' | 'ge'; value: Value }
  | { column: string; op: 'in'; values: Value[] }
  | { column: string; op: 'null' | 'notnull' };

/** A constant as it came: its text and the kind of literal it was. */
interface Value {
  text: string;
  kind: 'number' | 'text' | 'date';
}

const COMPARE: Record<string, 'eq' | 'lt' | 'le' | 'gt' | 'ge'> = {
  COMPARE_EQUAL: 'eq',
  COMPARE_LESSTHAN: 'lt',
  COMPARE_LESSTHANOREQUALTO: 'le',
  COMPARE_GREATERTHAN: 'gt',
  COMPARE_GREATERTHANOREQUALTO: 'ge',
};
const FLIP = { eq: 'eq', lt: 'gt', le: 'ge', gt: 'lt', ge: 'le' } as const;

/** The tests every row read from the table must pass, from the WHERE of the SELECT reading it alone. */
export function testsOf(where: Node | null | undefined, names: ReadonlySet<string>): Test[] {
  if (!where) return [];
  const conjuncts = where.class === 'CONJUNCTION' && where.type === 'CONJUNCTION_AND' ? (where.children as Node[]) : [where];
  const out: Test[] = [];
  for (const c of conjuncts) {
    if (c.class === 'CONJUNCTION' && c.type === 'CONJUNCTION_AND') {
      out.push(...testsOf(c, names));
      continue;
    }
    if (c.class === 'COMPARISON' && COMPARE[c.type as string]) {
      const op = COMPARE[c.type as string]!;
      const [l, r] = [columnOf(c.left as Node, names), columnOf(c.right as Node, names)];
      const [lv, rv] = [valueOf(c.left as Node), valueOf(c.right as Node)];
      if (l !== undefined && rv !== undefined) out.push({ column: l, op, value: rv });
      else if (r !== undefined && lv !== undefined) out.push({ column: r, op: FLIP[op], value: lv });
    } else if (c.class === 'BETWEEN') {
      const col = columnOf(c.input as Node, names);
      const [lo, hi] = [valueOf(c.lower as Node), valueOf(c.upper as Node)];
      if (col !== undefined && lo !== undefined) out.push({ column: col, op: 'ge', value: lo });
      if (col !== undefined && hi !== undefined) out.push({ column: col, op: 'le', value: hi });
    } else if (c.class === 'OPERATOR' && c.type === 'COMPARE_IN') {
      const [first, ...rest] = c.children as Node[];
      const col = columnOf(first!, names);
      const values = rest.map(valueOf);
      if (col !== undefined && values.every((v) => v !== undefined)) out.push({ column: col, op: 'in', values: values as Value[] });
    } else if (c.class === 'OPERATOR' && (c.type === 'OPERATOR_IS_NULL' || c.type === 'OPERATOR_IS_NOT_NULL')) {
      const col = columnOf((c.children as Node[])[0]!, names);
      if (col !== undefined) out.push({ column: col, op: c.type === 'OPERATOR_IS_NULL' ? 'null' : 'notnull' });
    }
  }
  return out;
}

/** `col` or `alias.col`, where alias names the table in this SELECT. */
function columnOf(e: Node, names: ReadonlySet<string>): string | undefined {
  if (e.class !== 'COLUMN_REF') return undefined;
  const parts = e.column_names as string[];
  if (parts.length === 1) return parts[0];
  if (parts.length === 2 && names.has(parts[0]!)) return parts[1];
  return undefined;
}

function valueOf(e: Node): Value | undefined {
  if (e.class === 'CONSTANT') {
    const v = e.value as { type: { id: string }; is_null: boolean; value: unknown };
    if (v.is_null) return undefined;
    if (['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT'].includes(v.type.id)) {
      return { text: String(v.value), kind: 'number' };
    }
    if (v.type.id === 'VARCHAR' && typeof v.value === 'string') return { text: v.value, kind: 'text' };
    return undefined; // DECIMAL and DOUBLE literals are left to DuckDB (their text is not their value here)
  }
  if (e.class === 'CAST' && (e.cast_type as { id: string }).id === 'DATE') {
    const inner = valueOf(e.child as Node);
    return inner?.kind === 'text' ? { text: inner.text, kind: 'date' } : undefined;
  }
  return undefined;
}

function kindOf(type: string): Kind | undefined {
  if (/^u?int(8|16|32|64|128)$/.test(type)) return 'int';
  if (type === 'float32' || type === 'float64') return 'float';
  if (type.startsWith('decimal(')) return 'decimal';
  if (type === 'varchar') return 'text';
  if (type === 'date') return 'date';
  return undefined;
}

const DATE = /^-?\d{4,}-\d{2}-\d{2}$/;

/** Compares a statistic (text as DuckDB printed it) with a constant, in the column's kind; undefined: cannot tell. */
function compare(kind: Kind, stat: string, v: Value): number | undefined {
  if ((kind === 'int' || kind === 'decimal') && v.kind === 'number') return exactCompare(stat, v.text);
  if (kind === 'float' && v.kind === 'number') {
    // DuckDB prints a double in its shortest exact form, so Number() gives that double back.
    const a = Number(stat);
    const b = Number(v.text);
    // Exact only while both are integers a double holds; beyond, keep the file.
    if (!Number.isFinite(a) || !Number.isSafeInteger(b)) return undefined;
    return a === b ? 0 : a < b ? -1 : 1;
  }
  if (kind === 'text' && v.kind === 'text') return Buffer.compare(Buffer.from(stat), Buffer.from(v.text));
  if (kind === 'date' && (v.kind === 'date' || v.kind === 'text') && DATE.test(stat) && DATE.test(v.text) && !stat.startsWith('-') && !v.text.startsWith('-')) {
    return stat < v.text ? -1 : stat > v.text ? 1 : 0;
  }
  return undefined;
}

/** Two plain decimal numerals ("-12.50", "3") compared exactly; undefined for anything else (an exponent). */
function exactCompare(a: string, b: string): number | undefined {
  const NUM = /^(-?)(\d+)(?:\.(\d+))?$/;
  const [ma, mb] = [NUM.exec(a), NUM.exec(b)];
  if (!ma || !mb) return undefined;
  const scale = Math.max(ma[3]?.length ?? 0, mb[3]?.length ?? 0);
  const scaled = (m: RegExpExecArray) => BigInt(`${m[1]}${m[2]}${(m[3] ?? '').padEnd(scale, '0')}`);
  const d = scaled(ma) - scaled(mb);
  return d === 0n ? 0 : d < 0n ? -1 : 1;
}

/** Whether no row of a file with these statistics can pass `t`. */
function rulesOut(t: Test, kind: Kind, s: ColumnStats): boolean {
  if (t.op === 'null') return s.nullCount === 0;
  if (t.op === 'notnull') return s.nullCount !== null && s.valueCount !== null && s.nullCount === s.valueCount;
  if (s.min === null || s.max === null || (kind === 'float' && s.containsNan !== false)) return false;
  const outside = (v: Value, op: 'eq' | 'lt' | 'le' | 'gt' | 'ge') => {
    const lo = compare(kind, s.min!, v);
    const hi = compare(kind, s.max!, v);
    if (lo === undefined || hi === undefined) return false;
    if (op === 'eq') return lo > 0 || hi < 0;
    if (op === 'lt') return lo >= 0;
    if (op === 'le') return lo > 0;
    if (op === 'gt') return hi <= 0;
    return hi < 0;
  };
  if (t.op === 'in') return t.values.every((v) => outside(v, 'eq'));
  const { value, op } = t as Extract<Test, { value: Value }>;
  return outside(value, op);
}

/** The files (by index) the tests rule out, given each file's statistics (absent: none known). */
export function skippable(tests: readonly Test[], columns: readonly ColumnInfo[], stats: readonly (ColumnStats[] | undefined)[]): Set<number> {
  const out = new Set<number>();
  if (tests.length === 0) return out;
  const byName = new Map(columns.map((c) => [c.name, c]));
  stats.forEach((fileStats, i) => {
    if (fileStats === undefined) return;
    const byId = new Map(fileStats.map((s) => [s.columnId as number, s]));
    for (const t of tests) {
      const col = byName.get(t.column);
      const kind = col && kindOf(col.type);
      const s = col && byId.get(col.id);
      if (kind !== undefined && s !== undefined && rulesOut(t, kind, s)) {
        out.add(i);
        return;
      }
    }
  });
  return out;
}
