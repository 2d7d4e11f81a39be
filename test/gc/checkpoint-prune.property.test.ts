// The pruning policy against its rules, over random sets of stored checkpoints: what it deletes is exactly
// what the rules allow, so the newest complete checkpoints, one a bootstrap may be reading and one a writer
// may still be writing are never among it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { checkPruneOptions, planCheckpointPrune } from '../../gc/checkpoints.js';
import type { StoredCheckpoint } from '../../src/log/checkpoint.js';

const NOW = 1_000_000;

// Checkpoints at distinct sequences; a later sequence is written no earlier than an earlier one. A complete
// one may be after an earlier complete one (decision 0059), an incomplete one after an incomplete one,
// chosen by `over` among those before it.
const stored: fc.Arbitrary<StoredCheckpoint[]> = fc
  .uniqueArray(fc.record({ seq: fc.integer({ min: 1, max: 10_000 }), complete: fc.boolean(), age: fc.nat(2_000), over: fc.option(fc.nat(), { nil: undefined }) }), {
    selector: (c) => c.seq,
    maxLength: 12,
  })
  .map((cs) => {
    const bySeq = [...cs].sort((a, b) => a.seq - b.seq);
    const ages = cs.map((c) => c.age).sort((a, b) => b - a); // oldest first, to go with ascending sequences
    const out: StoredCheckpoint[] = [];
    for (const [i, c] of bySeq.entries()) {
      // As list() gives them: a complete one is after a complete one; one whose manifest is there but is after
      // an incomplete one is itself incomplete.
      const below = out.filter((b) => b.complete === c.complete);
      const after = c.over !== undefined && below.length > 0 ? below[c.over % below.length]!.seq : null;
      out.push({ seq: kvSeq(c.seq), complete: c.complete, after, keys: [`checkpoints/${c.seq}/manifest`], lastModified: NOW - ages[i]! });
    }
    return out;
  });

describe('checkpoint pruning policy (property)', () => {
  it('deletes exactly the superseded-long-enough and the abandoned, never the newest `keep` complete ones', () => {
    fc.assert(
      fc.property(stored, fc.integer({ min: 1, max: 4 }), fc.nat(2_000), (cs, keep, minAgeMs) => {
        const planned = planCheckpointPrune(cs, NOW, { keep, minAgeMs, dryRun: false }).map((c) => c.seq);
        // Oldest first, complete or not, as the report lists them.
        expect(planned).toEqual([...planned].sort((a, b) => a - b));
        const deleted = new Set(planned);
        const complete = cs.filter((c) => c.complete);
        const old = (c: StoredCheckpoint) => NOW - c.lastModified >= minAgeMs;
        // What the age rules allow, less what a checkpoint that stays is read over, until nothing changes.
        const allowed = new Set(
          cs.filter((c) => {
            const i = complete.indexOf(c);
            return c.complete ? i < complete.length - keep && old(complete[i + 1]!) : old(c);
          }).map((c) => c.seq),
        );
        for (let changed = true; changed; ) {
          changed = false;
          for (const c of cs) if (c.complete && !allowed.has(c.seq) && c.after !== null && allowed.delete(c.after)) changed = true;
        }
        for (const c of cs) expect(deleted.has(c.seq)).toBe(allowed.has(c.seq));
        // Whatever happens, a new machine still finds the newest complete checkpoint.
        if (complete.length > 0) expect(deleted.has(complete.at(-1)!.seq)).toBe(false);
        expect(complete.filter((c) => !deleted.has(c.seq)).length).toBeGreaterThanOrEqual(Math.min(keep, complete.length));
      }),
      { numRuns: 500 },
    );
  });
});

describe('checkPruneOptions', () => {
  it('defaults to keeping 2, an hour, a real run; refuses an option it does not have, naming the ones it has', () => {
    expect(checkPruneOptions(undefined)).toEqual({ keep: 2, minAgeMs: 3600 * 1000, dryRun: false });
    expect(() => checkPruneOptions({ kep: 1 } as never)).toThrow('pruneCheckpoints() has no option "kep" (did you mean "keep"?); its options are keep, minAgeMs, dryRun');
  });
});
