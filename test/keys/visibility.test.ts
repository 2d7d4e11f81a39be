// DuckLake's visibility rule at its edges: a version is seen from its begin snapshot on, and no longer at its
// end snapshot (half-open), and forever while it has no end. The catalog's property test checks the rule
// over random histories; these are the boundaries a one-character slip moves.
import { describe, expect, it } from 'vitest';
import { isVisible } from '../../keys/visibility.js';

describe('isVisible', () => {
  it('begins at its begin snapshot, not before', () => {
    expect(isVisible(5, null, 4)).toBe(false);
    expect(isVisible(5, null, 5)).toBe(true);
    expect(isVisible(5, 9, 5)).toBe(true);
  });

  it('ends at its end snapshot: visible the snapshot before, gone at it and after', () => {
    expect(isVisible(5, 9, 8)).toBe(true);
    expect(isVisible(5, 9, 9)).toBe(false);
    expect(isVisible(5, 9, 10)).toBe(false);
  });

  it('stays visible with no end; a version ended where it began was never visible', () => {
    expect(isVisible(0, null, Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(isVisible(5, 5, 5)).toBe(false);
  });
});
