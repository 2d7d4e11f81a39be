// The one parser of snapshot names (src/snapshot-names.ts): an instant is exactly the calendar's or refused,
// an id is whole digits or refused, and the model of "a real instant" here is the calendar itself (fields that
// survive a round trip through Date unchanged), not the parser's own rules.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../src/index.js';
import { checkTagNameReadsAsTag, parseInstant, parseSnapshotId, parseSnapshotName } from '../src/snapshot-names.js';

const refused = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return isStrataError(e, 'INVALID_ARGUMENT');
  }
  return false;
};
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

describe('instants', () => {
  it('days that the month does not have, hour 24, minute and second 60 are refused, never rolled over', () => {
    for (const t of ['2026-02-30', '2026-02-29', '2026-02-31T23:59', '2026-04-31T00:00Z', '2026-01-01T24:00Z', '2026-01-01T23:60', '2026-01-01T23:59:60Z', '2026-13-01', '2026-00-10', '2026-01-00', '2026-01-01T12:00+24:00', '2026-01-01T12:00+05:60']) {
      expect(refused(() => parseInstant('timestamp', t)), t).toBe(true);
    }
    expect(parseInstant('t', '2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(parseInstant('t', '2000-02-29T12:00:00Z')).toBe(Date.UTC(2000, 1, 29, 12));
    expect(refused(() => parseInstant('t', '1900-02-29'))).toBe(true);
  });

  it('zones: Z, ±HH (as DuckDB prints a TIMESTAMPTZ), ±HHMM and ±HH:MM; none is UTC; a fraction below a millisecond is cut', () => {
    const noon = Date.UTC(2026, 2, 1, 12);
    expect(['2026-03-01T12:00Z', '2026-03-01 12:00:00', '2026-03-01 14:00:00+02', '2026-03-01T14:30+0230', '2026-03-01T09:00:00-03:00'].map((t) => parseInstant('t', t))).toEqual(Array(5).fill(noon));
    expect(parseInstant('t', '2026-03-01 12:00:00.123456789')).toBe(noon + 123);
  });

  it('accepts exactly the strings whose fields are a real instant (property: the calendar as the model)', () => {
    fc.assert(
      fc.property(
        fc.record({ y: fc.integer({ min: 1970, max: 2400 }), mo: fc.integer({ min: 0, max: 13 }), d: fc.integer({ min: 0, max: 32 }), h: fc.integer({ min: 0, max: 25 }), mi: fc.integer({ min: 0, max: 61 }), s: fc.integer({ min: 0, max: 61 }), ms: fc.integer({ min: 0, max: 999 }) }),
        ({ y, mo, d, h, mi, s, ms }) => {
          const text = `${y}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}.${pad(ms, 3)}Z`;
          const model = new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
          const real = model.getUTCFullYear() === y && model.getUTCMonth() === mo - 1 && model.getUTCDate() === d && model.getUTCHours() === h && model.getUTCMinutes() === mi && model.getUTCSeconds() === s;
          if (real) expect(parseInstant('t', text)).toBe(model.getTime());
          else expect(refused(() => parseInstant('t', text))).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('snapshot ids and names', () => {
  it('an id is whole digits: 3.0, 2.5, -1, 1e2, +3 are refused, never read as another id', () => {
    expect(parseSnapshotId('--at', '30')).toBe(30);
    for (const t of ['3.0', '2.5', '0.4', '-1', '1e2', '+3', '', '9007199254740993']) expect(refused(() => parseSnapshotId('--at', t)), t).toBe(true);
  });

  it('a name on the command line: digits an id, a date a time, tag:NAME a tag whatever it looks like, else a tag', () => {
    expect(parseSnapshotName('x', '7')).toEqual({ snapshot: 7 });
    expect(parseSnapshotName('x', '2026-03-01')).toEqual({ timestamp: Date.UTC(2026, 2, 1) });
    expect(parseSnapshotName('x', 'q1')).toEqual({ tag: 'q1' });
    expect(parseSnapshotName('x', 'tag:3')).toEqual({ tag: '3' });
    expect(parseSnapshotName('x', 'tag:2026-01-01')).toEqual({ tag: '2026-01-01' });
    for (const t of ['3.0', '-1', '2026-02-30', '2026-01-01T24:00']) expect(refused(() => parseSnapshotName('x', t)), t).toBe(true);
  });

  it('a tag cannot be named so that it reads as an id or a time', () => {
    for (const t of ['3', '3.0', '-1', '1e5', '2026-01-01', '2026-02-30x']) expect(refused(() => checkTagNameReadsAsTag(t)), t).toBe(true);
    for (const t of ['v3', 'q1', 'release-2026-01-01', 'tag:3']) expect(() => checkTagNameReadsAsTag(t)).not.toThrow();
  });
});
