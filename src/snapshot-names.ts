// How a snapshot is named in text — an id, an instant, a tag — parsed in one place for the API, SQL's AT
// clauses and the command line, so that every surface answers a name the same way: exactly, or with
// INVALID_ARGUMENT. Nothing here rounds, rolls over or guesses: "3.0" is not snapshot 30, "2026-02-30" is not
// March 2nd, and a tag cannot be named so that it reads as an id or a time.
import { StrataError } from './errors.js';

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

/** What a name selects: the shape of a reader's selector. */
export type NamedSnapshot = { snapshot: number } | { timestamp: number } | { tag: string };

// A date, or a date and a time of day (seconds, a fraction of up to 9 digits and a zone optional). The zone is
// Z, ±HH, ±HHMM or ±HH:MM (DuckDB prints a TIMESTAMPTZ with ±HH).
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;
/** Text that begins like a date: meant as a time, so it is one or it is refused (never a tag). */
const DATE_LIKE = /^\d{4}-\d{2}-\d{2}/;
/** Text that reads as a number of any form: meant as an id, so it is one or it is refused. */
const NUMBER_LIKE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
/** On the command line, a name after this prefix is a tag, whatever it looks like. */
export const TAG_PREFIX = 'tag:';

const EXAMPLE = 'such as "2026-03-01T12:00:00Z" (a time without a zone is UTC)';

function daysIn(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0); // day 0 of the next month: the last of this one
  return d.getUTCDate();
}

/**
 * An ISO-8601 date or date-time as ms since epoch, or undefined when the text is not one. Each field is
 * checked against the calendar (a 30th of February, hour 24, minute 60 are not instants); a fraction below a
 * millisecond is cut, since a snapshot time is whole milliseconds and "committed at or before T" reads the same.
 */
function instantOf(text: string): number | undefined {
  const m = INSTANT.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((f) => (f === undefined ? undefined : Number(f))) as number[];
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysIn(year!, month!) || hour > 23 || minute > 59 || second > 59) return undefined;
  const zone = m[8];
  let offsetMinutes = 0;
  if (zone !== undefined && zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const [h, mm] = [Number(digits.slice(0, 2)), digits.length > 2 ? Number(digits.slice(2)) : 0];
    if (h > 23 || mm > 59) return undefined;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (h * 60 + mm);
  }
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const t = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999.
  t.setUTCFullYear(year!, month! - 1, day!);
  t.setUTCHours(hour, minute, second, ms);
  return t.getTime() - offsetMinutes * 60_000;
}

/**
 * A time argument (the API's `timestamp`, `olderThan`, a history bound) as ms since epoch: a number of ms, a
 * Date, or an ISO-8601 string that is a real instant. Anything else is INVALID_ARGUMENT.
 */
export function parseInstant(what: string, t: unknown): number {
  let ms: number | undefined;
  if (typeof t === 'number') ms = t;
  else if (t instanceof Date) ms = t.getTime();
  else if (typeof t === 'string') ms = instantOf(t.trim());
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) {
    const why = typeof t === 'string' && DATE_LIKE.test(t.trim()) ? ' (no such date or time of day: it is not rolled over to another)' : '';
    throw invalid(`${what} must be ms since epoch, a Date or an ISO-8601 date or time ${EXAMPLE}; got ${JSON.stringify(t)}${why}`);
  }
  return Math.floor(ms);
}

/** A snapshot id written as text: whole decimal digits only. */
export function parseSnapshotId(what: string, text: string): number {
  const id = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw invalid(`${what} ${JSON.stringify(text)} is not a snapshot id: give a whole number such as 7 (no sign, point or exponent)`);
  return id;
}

/**
 * A snapshot named by one argument on the command line: digits are an id, a date or date-time is an instant,
 * `tag:NAME` is the tag NAME, anything else a tag. Text that reads as a number but not an id ("3.0", "-1")
 * and text that begins like a date but is not one ("2026-02-30") are refused, never taken as a tag name.
 */
export function parseSnapshotName(what: string, text: string): NamedSnapshot {
  if (text.startsWith(TAG_PREFIX)) return { tag: text.slice(TAG_PREFIX.length) };
  const reads = readsAsSnapshot(text);
  if (reads === 'id') return { snapshot: parseSnapshotId(what, text) };
  if (reads === 'time') return { timestamp: parseInstant(what, text) };
  return { tag: text };
}

/** Whether text would be read as a snapshot id or a time where a snapshot is named, rather than as a tag. */
export function readsAsSnapshot(text: string): 'id' | 'time' | undefined {
  return NUMBER_LIKE.test(text) ? 'id' : DATE_LIKE.test(text) ? 'time' : undefined;
}

/**
 * Refuses a new tag name that a snapshot argument would read as an id or a time: such a tag could only ever be
 * reached through `tag:`, and a person typing it would silently get another snapshot.
 */
export function checkTagNameReadsAsTag(name: string): void {
  const reads = readsAsSnapshot(name);
  if (reads !== undefined) {
    throw invalid(`tag name ${JSON.stringify(name)} reads as a snapshot ${reads}, so "${name}" would not name the tag where snapshots are named; choose a name that starts with a letter, such as "v${name}"`);
  }
}
