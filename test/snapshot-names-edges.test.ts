// The edges of how a snapshot is named in text (snapshot-names.test.ts has the rules): zone offsets at their
// limits, a fraction of one or two digits, the anchors of the patterns that decide whether text is meant as an
// id or a time, surrounding spaces, a Date, a negative or infinite number, and every refusal's words.
import { describe, expect, it } from 'vitest';
import { checkTagNameReadsAsTag, parseInstant, parseSnapshotName } from '../src/snapshot-names.js';

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('not refused');
};

describe('instants at their edges', () => {
  it('zone offsets up to 23:59 either way, in every form; 24 hours or 60 minutes is no offset', () => {
    const at = Date.UTC(2026, 2, 1, 12);
    expect(parseInstant('t', '2026-03-01T12:00:00+23:59')).toBe(at - (23 * 60 + 59) * 60_000);
    expect(parseInstant('t', '2026-03-01T12:00:00-23:59')).toBe(at + (23 * 60 + 59) * 60_000);
    expect(parseInstant('t', '2026-03-01T12:00:00+0530')).toBe(at - 330 * 60_000);
    expect(parseInstant('t', '2026-03-01T12:00:00+05')).toBe(at - 300 * 60_000);
    expect(parseInstant('t', '2026-03-01T12:00:00Z')).toBe(at);
    for (const bad of ['2026-03-01T12:00:00+24:00', '2026-03-01T12:00:00+05:60', '2026-03-01T24:00', '2026-03-01T12:60']) {
      expect(() => parseInstant('t', bad), bad).toThrow(/no such date or time of day/);
    }
  });

  it('a fraction of one or two digits is tenths or hundredths; spaces around the text are not part of it', () => {
    expect(parseInstant('t', '2026-03-01T12:00:00.5Z')).toBe(Date.UTC(2026, 2, 1, 12, 0, 0, 500));
    expect(parseInstant('t', '2026-03-01T12:00:00.25Z')).toBe(Date.UTC(2026, 2, 1, 12, 0, 0, 250));
    expect(parseInstant('t', '  2026-03-01  ')).toBe(Date.UTC(2026, 2, 1));
    expect(parseInstant('t', new Date(Date.UTC(2026, 2, 1)))).toBe(Date.UTC(2026, 2, 1));
    expect(parseInstant('t', 0)).toBe(0);
  });

  it('refuses text around an instant, a negative or infinite number, and says why', () => {
    const example = 'such as "2026-03-01T12:00:00Z" (a time without a zone is UTC)';
    expect(refusal(() => parseInstant('olderThan', 'x2026-03-01'))).toBe(`olderThan must be ms since epoch, a Date or an ISO-8601 date or time ${example}; got "x2026-03-01"`);
    expect(refusal(() => parseInstant('olderThan', '2026-03-01x'))).toBe(
      `olderThan must be ms since epoch, a Date or an ISO-8601 date or time ${example}; got "2026-03-01x" (no such date or time of day: it is not rolled over to another)`,
    );
    expect(refusal(() => parseInstant('t', -1))).toMatch(/got -1$/);
    expect(refusal(() => parseInstant('t', Infinity))).toMatch(/got null$/);
    expect(refusal(() => parseInstant('t', new Date(Number.NaN)))).toMatch(/got null$/);
  });
});

describe('whether text is meant as an id, a time or a tag', () => {
  it('the patterns are anchored: a name that merely contains a number or a date is a tag', () => {
    for (const name of ['v1', '1x', 'x2026-01-01', 'e5', '.', '1.2.3', '.5x']) expect(parseSnapshotName('s', name), name).toEqual({ tag: name });
    // Forms of a number that are not an id: refused, not a tag.
    for (const name of ['.5', '1e5', '1E+5', '10.', '+3']) expect(() => parseSnapshotName('s', name), name).toThrow(/is not a snapshot id/);
    expect(() => parseSnapshotName('s', '2026-01-1x')).not.toThrow();
  });

  it('refusing a tag name that reads as a snapshot says what to name it instead', () => {
    expect(refusal(() => checkTagNameReadsAsTag('7'))).toBe(
      'tag name "7" reads as a snapshot id, so "7" would not name the tag where snapshots are named; choose a name that starts with a letter, such as "v7"',
    );
  });
});
