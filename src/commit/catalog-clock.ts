// The catalog's clock, checked at every reading. Snapshot times never go backwards, so one commit stamped by
// a clock far ahead would put the future on every later snapshot, and a grace period or a lease would end
// early by that clock: a writer whose clock is ahead of the store's by more than the bound is refused.
import { MAX_TIME_MS } from '../arguments.js';
import { StrataError } from '../errors.js';
import type { ObjectStore } from '../store/object-store.js';

export const DEFAULT_MAX_CLOCK_SKEW_MS = 60_000;

/**
 * `clock`, refusing a reading that is not a time (NaN, negative, past year 9999) and, when `maxSkewMs` is
 * not null, one ahead of the store's clock by more than it. A reading is taken to the millisecond below: a
 * snapshot's time is whole milliseconds (DuckLake's timestamps, the time index's keys), and a clock such as
 * performance.timeOrigin + performance.now() has fractions.
 */
export function checkedClock(clock: () => number, store: ObjectStore, maxSkewMs: number | null): () => number {
  return () => {
    const read = clock();
    const t = typeof read === 'number' ? Math.floor(read) : read;
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > MAX_TIME_MS) {
      throw new StrataError(
        'INVALID_ARGUMENT',
        `the catalog's clock returned ${typeof read === 'number' ? String(read) : JSON.stringify(read) ?? String(read)}; a clock returns ms since epoch, ` +
          'a finite number from 0 to the end of year 9999 (Date.now does)',
      );
    }
    if (maxSkewMs === null) return t;
    const storeNow = store.clockNow();
    if (storeNow !== undefined && t - storeNow > maxSkewMs) {
      throw new StrataError(
        'INVALID_ARGUMENT',
        `this process's clock reads ${new Date(t).toISOString()}, ${Math.round(t - storeNow)} ms ahead of the clock of ` +
          `${store.description} (${new Date(storeNow).toISOString()}), more than maxClockSkewMs (${maxSkewMs}); nothing was ` +
          'committed. Snapshot times never go backwards, so a time this far ahead would be carried by every later ' +
          'snapshot: set this machine\'s clock right (NTP), or open with a larger maxClockSkewMs',
      );
    }
    return t;
  };
}
