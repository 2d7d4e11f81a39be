// A file's lower and upper bounds in Iceberg's single-value binary form (the spec's Appendix D), made from the
// statistics Strata keeps as DuckDB prints values. A bound an engine uses to skip a file must hold for every
// value in it, so a text that does not parse exactly as its type is left out (no bound: the file is read),
// never guessed at. Floats get bounds only from a file known to hold no NaN.
import type { ColumnStats } from '../../keys/file-column-stats.js';

const DECIMAL = /^decimal\((\d+),(\d+)\)$/;
const INTEGER = /^-?\d{1,20}$/;
const FLOAT = /^-?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MICROS_PER_DAY = 86_400_000_000n;
const [MIN_INT, MAX_INT] = [-(2n ** 31n), 2n ** 31n - 1n];
const [MIN_LONG, MAX_LONG] = [-(2n ** 63n), 2n ** 63n - 1n];

/** The Iceberg primitive type (as types.ts names it) and a value's text → its single-value bytes, or undefined. */
export function singleValue(icebergType: string, text: string): Uint8Array | undefined {
  switch (icebergType) {
    case 'boolean':
      return text === 'true' ? Uint8Array.of(1) : text === 'false' ? Uint8Array.of(0) : undefined;
    case 'int':
      return int32(text);
    case 'long':
      return int64(text);
    case 'float':
      return float(text, 4);
    case 'double':
      return float(text, 8);
    case 'date': {
      const d = days(text);
      return d === undefined ? undefined : le(BigInt(d), 4);
    }
    case 'time': {
      const t = timeOfDay(text);
      return t === undefined ? undefined : le(t, 8);
    }
    case 'timestamp': {
      const t = timestamp(text, false);
      return t === undefined ? undefined : le(t, 8);
    }
    case 'timestamptz': {
      const t = timestamp(text, true);
      return t === undefined ? undefined : le(t, 8);
    }
    case 'string':
      return new TextEncoder().encode(text);
    case 'uuid':
      return UUID.test(text) ? Uint8Array.from(Buffer.from(text.replaceAll('-', ''), 'hex')) : undefined;
    default: {
      const m = DECIMAL.exec(icebergType);
      return m === null ? undefined : decimal(text, Number(m[2]));
    }
  }
}

/** A column's bounds, both or neither: an engine may read a lower bound without an upper one as "no upper". */
export function bounds(icebergType: string, stats: ColumnStats): { lower: Uint8Array; upper: Uint8Array } | undefined {
  if (stats.min === null || stats.max === null) return undefined;
  if ((icebergType === 'float' || icebergType === 'double') && stats.containsNan !== false) return undefined;
  const lower = singleValue(icebergType, stats.min);
  const upper = singleValue(icebergType, stats.max);
  return lower === undefined || upper === undefined ? undefined : { lower, upper };
}

function int32(text: string): Uint8Array | undefined {
  if (!INTEGER.test(text)) return undefined;
  const n = BigInt(text);
  return n < MIN_INT || n > MAX_INT ? undefined : le(n, 4);
}

function int64(text: string): Uint8Array | undefined {
  if (!INTEGER.test(text)) return undefined;
  const n = BigInt(text);
  return n < MIN_LONG || n > MAX_LONG ? undefined : le(n, 8);
}

function float(text: string, width: 4 | 8): Uint8Array | undefined {
  const lower = text.toLowerCase();
  const value = lower === 'inf' || lower === 'infinity' ? Infinity : lower === '-inf' || lower === '-infinity' ? -Infinity : FLOAT.test(text) ? Number(text) : undefined;
  if (value === undefined) return undefined;
  // A FLOAT's text is DuckDB's shortest digits for it, so the nearest float32 to the text is the file's value.
  const out = Buffer.alloc(width);
  if (width === 4) out.writeFloatLE(value);
  else out.writeDoubleLE(value);
  return Uint8Array.from(out);
}

/** Little-endian two's complement of `n` in `width` bytes. */
function le(n: bigint, width: number): Uint8Array {
  const out = new Uint8Array(width);
  const view = new DataView(out.buffer);
  if (width === 8) view.setBigUint64(0, BigInt.asUintN(64, n), true);
  else if (width === 4) view.setUint32(0, Number(BigInt.asUintN(32, n)), true);
  else for (let i = 0, v = BigInt.asUintN(width * 8, n); i < width; i++, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

/** Days from 1970-01-01 of a proleptic Gregorian date from year 0001 to 9999 (Hinnant's days_from_civil). */
function days(text: string): number | undefined {
  const m = DATE.exec(text);
  if (m === null) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined;
  const yy = mo <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function daysInMonth(y: number, mo: number): number {
  if (mo === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(mo) ? 30 : 31;
}

/** Microseconds since midnight of `HH:MM:SS[.ffffff]`, a time of one day (24:00:00 is not one). */
function timeOfDay(text: string): bigint | undefined {
  const m = TIME.exec(text);
  if (m === null) return undefined;
  const [h, mi, s] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (h > 23 || mi > 59 || s > 59) return undefined;
  return BigInt((h * 60 + mi) * 60 + s) * 1_000_000n + BigInt((m[4] ?? '').padEnd(6, '0'));
}

/** Microseconds since the epoch of DuckDB's `YYYY-MM-DD HH:MM:SS[.ffffff]`, followed by `+00` when `zoned`. */
function timestamp(text: string, zoned: boolean): bigint | undefined {
  const space = text.indexOf(' ');
  if (space !== 10) return undefined;
  const d = days(text.slice(0, space));
  let rest = text.slice(space + 1);
  if (zoned) {
    // Only UTC's: DuckDB prints an offset to the minute, so a zone whose offset had seconds (a local mean
    // time before 1900) prints an instant seconds away from the value.
    if (!rest.endsWith('+00')) return undefined;
    rest = rest.slice(0, -3);
  }
  const t = timeOfDay(rest);
  if (d === undefined || t === undefined) return undefined;
  return BigInt(d) * MICROS_PER_DAY + t;
}

/** The unscaled value of a decimal text at `scale`, as Iceberg's minimal big-endian two's complement. */
function decimal(text: string, scale: number): Uint8Array | undefined {
  // DuckDB prints a DECIMAL(p,p) with no digit before the point: '.500', '-.5'.
  const m = /^(-?)(\d*)(?:\.(\d+))?$/.exec(text);
  if (m === null || (m[2] === '' && m[3] === undefined) || (m[3] ?? '').length > scale) return undefined;
  const unscaled = BigInt(`${m[1]}${m[2]}${(m[3] ?? '').padEnd(scale, '0')}`);
  let width = 1;
  while (unscaled < -(2n ** BigInt(width * 8 - 1)) || unscaled >= 2n ** BigInt(width * 8 - 1)) width++;
  return le(unscaled, width).reverse();
}
