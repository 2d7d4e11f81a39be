// A column as a caller gives it (ColumnSpec) checked into the rows a transaction writes: its type, its
// NULL rule and default, and for a nested column (struct, list, map) its fields' columns, depth first.
import { CHILD_NAMES, nestedType } from '../../keys/column-types.js';
import type { ColumnRow } from '../../keys/columns.js';
import type { ColumnId } from '../../keys/ids.js';
import { checkColumnType, checkName, checkOptionalText, options, required, shown } from '../arguments.js';
import { quote } from '../messages.js';
import type { Row } from './change.js';
import { invalid } from './refusals.js';

export interface ColumnSpec {
  name: string;
  /** A primitive type, decimal(P,S), or struct, list or map with `children`. */
  type: string;
  /** Default true. */
  nullable?: boolean;
  /** A default value expression, as text. */
  default?: string | null;
  /** A nested column's fields: a struct's (any names), a list's `element`, a map's `key` and `value`. */
  children?: ColumnSpec[];
}

/** A column as a transaction checked it, with its fields' columns should it be nested. */
export interface ColumnTree {
  row: Row<ColumnRow>;
  children: ColumnTree[];
}

/** The rows of a checked column and its fields, depth first, each given the next id. */
export function placed(tree: ColumnTree, nextId: () => ColumnId, parent: ColumnId | null): [ColumnId, Row<ColumnRow>][] {
  const id = nextId();
  return [[id, { ...tree.row, parentColumn: parent }], ...tree.children.flatMap((child) => placed(child, nextId, id))];
}

/** A column spec checked: its row at position `order`, and its fields' should it be nested. */
export function columnTree(c: ColumnSpec, order: number): ColumnTree {
  required('a column', '{ name, type }', c);
  options('a column', c, ['name', 'type', 'nullable', 'default', 'children']);
  const name = checkName('column name', c.name);
  if (c.nullable !== undefined && typeof c.nullable !== 'boolean') {
    throw invalid(`nullable of column ${quote(name)} must be a boolean`);
  }
  const nested = typeof c.type === 'string' ? nestedType(c.type) : undefined;
  const row = { name, order, nullsAllowed: c.nullable ?? true, parentColumn: null };
  if (nested === undefined) {
    if (c.children !== undefined) throw invalid(`column ${quote(name)} is ${shown(c.type)}, which has no children; only struct, list and map do`);
    return { row: { ...row, type: checkColumnType(`type of column ${quote(name)}`, c.type), defaultValue: checkOptionalText(`default of column ${quote(name)}`, c.default) }, children: [] };
  }
  const names = CHILD_NAMES[nested];
  const shape = names === undefined ? 'its fields, [{ name, type }, …]' : names.map((n) => `{ name: '${n}', type }`).join(', ');
  if (!Array.isArray(c.children) || c.children.length === 0) throw invalid(`column ${quote(name)} is a ${nested}: give children: [${shape}]`);
  if (c.default !== undefined && c.default !== null) throw invalid(`column ${quote(name)} is a ${nested}, which takes no default`);
  const children = c.children.map((child, i) => columnTree(child, i + 1));
  const got = children.map((k) => k.row.name);
  if (names !== undefined && (got.length !== names.length || got.some((n, i) => n !== names[i]))) {
    throw invalid(`column ${quote(name)} is a ${nested}, whose children are [${shape}]; got ${got.map((n) => quote(n)).join(', ')}`);
  }
  if (new Set(got).size !== got.length) throw invalid(`struct column ${quote(name)} names a field twice: ${got.map((n) => quote(n)).join(', ')}`);
  return { row: { ...row, type: nested, defaultValue: null }, children };
}

/**
 * `c`'s default checked to be a value of its type as DuckDB reads it (`defaultProblem`, TxnSql's): it fills
 * every row of a file written before the column, so one DuckDB cannot cast would fail each such read.
 */
export async function checkDefault(
  sql: { defaultProblem(type: string, value: string): Promise<string | undefined> },
  c: { name: string; type: string; defaultValue: string | null },
): Promise<void> {
  if (c.defaultValue === null || nestedType(c.type) !== undefined) return; // a nested column takes none (columnTree)
  const problem = await sql.defaultProblem(c.type, c.defaultValue);
  if (problem !== undefined) {
    throw invalid(`column ${quote(c.name)} defaults to ${JSON.stringify(c.defaultValue)}, which is no value of type ${c.type} (${problem}); give a constant of the column's type, or no default`);
  }
}

/** checkDefault for a column and each of its fields. */
export async function checkDefaults(sql: Parameters<typeof checkDefault>[0], tree: ColumnTree): Promise<void> {
  await checkDefault(sql, tree.row);
  for (const t of tree.children) await checkDefaults(sql, t);
}

/** A column as a table's rows hold it: its id, its parent's (a nested column's field), its place among its siblings. */
export interface FlatColumn {
  id: number;
  parentColumn: number | null;
  order: number;
  name: string;
  type: string;
  nullsAllowed: boolean;
  defaultValue: string | null;
}

/** A table's column (or field) with its id, checked, and its fields'. */
export interface IdTree {
  id: number;
  row: Row<ColumnRow>;
  children: IdTree[];
}

/**
 * A table's live columns, given flat as its rows hold them (an import's), as the trees createTable takes them:
 * each top-level column checked by columnTree (names, types, a list's `element`, a map's `key` and `value`, a
 * struct's fields named once), top-level names used once, one column at least, and every field under a live
 * parent of the table, with no parents going round in a cycle.
 */
export function columnTrees(rows: readonly FlatColumn[]): IdTree[] {
  const children = new Map<number | null, FlatColumn[]>();
  for (const r of rows) (children.get(r.parentColumn) ?? children.set(r.parentColumn, []).get(r.parentColumn)!).push(r);
  const ordered = (parent: number | null) => (children.get(parent) ?? []).sort((a, b) => a.order - b.order);
  let placed = 0;
  // Each id is reached once from the top: again means two columns share it and one lies under the other,
  // so following parents from it would go round without end.
  const reached = new Set<number>();
  const spec = (r: FlatColumn): ColumnSpec => {
    placed++;
    if (reached.has(r.id)) throw invalid(`its column id ${r.id} is reached twice from its top-level columns: ${quote(r.name)} is one of two columns with that id (and where one lies under the other, their parents go round in a cycle)`);
    reached.add(r.id);
    const kids = ordered(r.id);
    return { name: r.name, type: r.type, nullable: r.nullsAllowed, default: r.defaultValue, ...(kids.length > 0 ? { children: kids.map(spec) } : {}) };
  };
  const top = ordered(null);
  if (top.length === 0) throw invalid('it has no live column; a table has one at least');
  const checked = top.map((r, i) => columnTree(spec(r), i + 1));
  if (placed < rows.length) {
    const orphan = rows.find((r) => !reachesTop(r, rows))!;
    throw invalid(`its column ${quote(orphan.name)} (id ${orphan.id}) has parent column ${orphan.parentColumn}, which is not a live column of the table (or its parents go round in a cycle)`);
  }
  const names = checked.map((t) => t.row.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw invalid(`it names column ${quote(twice)} twice`);
  const withIds = (tree: ColumnTree, r: FlatColumn): IdTree => ({ id: r.id, row: { ...tree.row, order: r.order, parentColumn: r.parentColumn as ColumnId | null }, children: tree.children.map((t, i) => withIds(t, ordered(r.id)[i]!)) });
  return checked.map((t, i) => withIds(t, top[i]!));
}

/** Whether a column reaches a top-level one through live parents. */
function reachesTop(r: FlatColumn, rows: readonly FlatColumn[]): boolean {
  const parent = new Map(rows.map((x) => [x.id, x.parentColumn]));
  const seen = new Set<number>();
  for (let at: number | null | undefined = r.id; at !== null; at = parent.get(at)) {
    if (at === undefined || seen.has(at)) return false;
    seen.add(at);
  }
  return true;
}
