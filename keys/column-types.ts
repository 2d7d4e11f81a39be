// Column types as DuckLake names them, and which changes of type a table's existing files can take: only
// widening ones (DuckLake's TypePromotionIsAllowed), because files already written keep their physical type
// and are read under the new one. A nested type (struct, list, map) is a column whose fields are child
// columns (ducklake_column's parent_column): a list's one child is named `element`, a map's two `key` and
// `value`, a struct's are its fields.
export const PRIMITIVE_TYPES = [
  'boolean',
  'int8', 'int16', 'int32', 'int64', 'int128',
  'uint8', 'uint16', 'uint32', 'uint64', 'uint128',
  'float32', 'float64',
  'date', 'time', 'timetz', 'timestamp', 'timestamptz', 'timestamp_s', 'timestamp_ms', 'timestamp_ns',
  'interval', 'varchar', 'blob', 'uuid', 'json',
] as const;

const PRIMITIVES: ReadonlySet<string> = new Set(PRIMITIVE_TYPES);

export const NESTED_TYPES = ['struct', 'list', 'map'] as const;
export type NestedType = (typeof NESTED_TYPES)[number];

/** The nested type a name is (any case), or undefined. */
export function nestedType(type: string): NestedType | undefined {
  const t = type.trim().toLowerCase();
  return (NESTED_TYPES as readonly string[]).includes(t) ? (t as NestedType) : undefined;
}

/** The names a nested type's children must have (undefined: any distinct names, at least one — a struct). */
export const CHILD_NAMES: Readonly<Record<NestedType, readonly string[] | undefined>> = { struct: undefined, list: ['element'], map: ['key', 'value'] };
const DECIMAL = /^decimal\((\d{1,2}),\s*(\d{1,2})\)$/;

/** The canonical name of a type (lower case, decimal(p,s) without spaces), or undefined if it is not one. */
export function columnType(type: string): string | undefined {
  const t = type.trim().toLowerCase();
  if (PRIMITIVES.has(t)) return t;
  const m = DECIMAL.exec(t);
  if (m && Number(m[1]) >= 1 && Number(m[1]) <= 38 && Number(m[2]) <= Number(m[1])) return `decimal(${m[1]},${m[2]})`;
  return undefined;
}

/** Every value of the first type is a value of each type it may widen to. */
const WIDENINGS: ReadonlyMap<string, readonly string[]> = new Map([
  ['int8', ['int16', 'int32', 'int64']],
  ['int16', ['int32', 'int64']],
  ['int32', ['int64']],
  ['uint8', ['int16', 'int32', 'int64', 'uint16', 'uint32', 'uint64']],
  ['uint16', ['int32', 'int64', 'uint32', 'uint64']],
  ['uint32', ['uint64']],
  ['float32', ['float64']],
]);

/** Whether a column of type `from` (canonical) may become `to` (canonical) with files already written. */
export function isWidening(from: string, to: string): boolean {
  return WIDENINGS.get(from)?.includes(to) ?? false;
}

/** The types `from` may widen to, for messages. */
export const wideningsOf = (from: string): readonly string[] => WIDENINGS.get(from) ?? [];
