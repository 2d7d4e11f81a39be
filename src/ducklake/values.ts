// How DuckLake's SQLite catalog writes what SQLite has no type for: a TIMESTAMPTZ is text, as DuckDB prints
// one (`2026-03-01 12:00:00.123+00`), and a BOOLEAN is 0 or 1.
import { StrataError } from '../errors.js';
import type { ObjectStore } from '../store/object-store.js';

/** `ms` since epoch as DuckDB prints a TIMESTAMPTZ in UTC. */
export function sqlTime(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')}+00`;
}

const TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:(Z)|([+-]\d{2})(?::?(\d{2}))?)?$/;

/** Whether the fields name a real instant: Date.parse rolls 2026-02-30 over into March, and 24:00 into the next day. */
function isRealInstant(y: number, mo: number, d: number, h: number, mi: number, s: number): boolean {
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days && h <= 23 && mi <= 59 && s <= 59;
}

/** A TIMESTAMPTZ as DuckDB or SQLite may have written it (no zone: UTC), in ms since epoch; never rolled over. */
export function parseSqlTime(what: string, text: unknown): number {
  const m = typeof text === 'string' ? TIME.exec(text.trim()) : null;
  if (m === null) throw new StrataError('INVALID_ARGUMENT', `${what} is ${JSON.stringify(text)}, not a timestamp like 2026-03-01 12:00:00.123+00`);
  const [, y, mo, d, h, mi, s, fraction, , hours, minutes] = m;
  if (!isRealInstant(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s))) {
    throw new StrataError('INVALID_ARGUMENT', `${what} is ${JSON.stringify(text)}, which is not a real instant (no such day or time of day)`);
  }
  const zone = hours === undefined ? 'Z' : `${hours}:${minutes ?? '00'}`;
  // JavaScript keeps milliseconds: finer digits are dropped, as Strata's snapshot times are in ms.
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${(fraction ?? '').slice(0, 4)}${zone}`);
  if (Number.isNaN(ms)) throw new StrataError('INVALID_ARGUMENT', `${what} is ${JSON.stringify(text)}, not a valid time`);
  return ms;
}

/** A BOOLEAN column's value: 0/1 as SQLite holds it, or true/false as text. */
export function sqlBool(v: unknown): boolean | null {
  if (v === null || v === undefined) return null;
  if (v === 1 || v === 1n || v === true || v === 'true' || v === '1') return true;
  if (v === 0 || v === 0n || v === false || v === 'false' || v === '0') return false;
  throw new StrataError('INVALID_ARGUMENT', `${typeof v === 'string' ? JSON.stringify(v) : String(v)} is not a boolean`);
}

/**
 * The data path as DuckLake's data_path (ending in '/'), from where the store locates a file under it: a
 * store has no name for the prefix itself, only for objects under it.
 */
export function dataLocation(store: ObjectStore, dataPath: string): string {
  return store.url(`${dataPath}x`).slice(0, -1);
}
