// Checks of the options the maintenance jobs share, with one wording for each kind of mistake.
import { StrataError } from '../src/errors.js';

/** A duration in ms, at least 0; `fallback` when not given. */
export function durationMs(what: string, v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new StrataError('INVALID_ARGUMENT', `${what} must be a whole number of ms >= 0, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** A count of at least 1; `fallback` when not given. */
export function positiveCount(what: string, v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) {
    throw new StrataError('INVALID_ARGUMENT', `${what} must be a positive integer, got ${JSON.stringify(v)}`);
  }
  return v;
}

export function flag(what: string, v: unknown): boolean {
  if (v !== undefined && typeof v !== 'boolean') throw new StrataError('INVALID_ARGUMENT', `${what} must be a boolean`);
  return v ?? false;
}
