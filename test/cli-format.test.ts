// The CLI groups counts itself (format.ts `count`) rather than through ICU, whose first call costs a process
// ~12 ms: the model is ICU, toLocaleString('en-US'), for every safe integer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { count } from '../src/cli/format.js';

describe('a count as the CLI prints it', () => {
  it("is toLocaleString('en-US') of it, for any safe integer", () => {
    for (const n of [0, 7, 999, 1000, -1000, 123456789, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) expect(count(n)).toBe(n.toLocaleString('en-US'));
    fc.assert(fc.property(fc.maxSafeInteger(), (n) => count(n) === n.toLocaleString('en-US')), { numRuns: 5000 });
  });
});
