// Runs the sides of one question against each other: every run times every side (the order alternating
// run to run, so neither always goes first on a warmer machine), and the answers must agree query by query.
import { type Side, type Timing, timeSide } from './sides.js';

export interface Case {
  label: string;
  /** The catalog side first: the others' answers are checked against its. */
  sides: Side[];
  /** Queries after the first, per side and run. */
  warm: number;
}

export interface Summary {
  firstMs: number;
  p50us: number;
  p99us: number;
  perSec: number;
}

export async function runCase(c: Case, runs: number): Promise<Map<string, Summary>> {
  const timings = new Map<string, Timing[]>(c.sides.map((s) => [s.label, []]));
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? c.sides : [...c.sides].reverse();
    const got = new Map<string, Timing>();
    for (const side of order) got.set(side.label, await timeSide(side, c.warm));
    const [base, ...rest] = c.sides;
    for (const side of rest) {
      const [a, b] = [got.get(base!.label)!.answers, got.get(side.label)!.answers];
      const bad = b.findIndex((x, q) => x !== a[q]);
      if (bad >= 0) throw new Error(`${c.label}: ${side.label} answered query ${bad} ${b[bad]}, ${base!.label} ${a[bad]}`);
    }
    for (const [label, t] of got) timings.get(label)!.push(t);
  }
  return new Map([...timings].map(([label, ts]) => [label, summarize(ts)]));
}

/** The first query: the median over runs; the warm figures: all from the run whose warm p50 is the median. */
function summarize(ts: Timing[]): Summary {
  const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  const runs = ts.map((t) => {
    const sorted = [...t.warmNs].sort((a, b) => a - b);
    return { p50: pct(sorted, 0.5), p99: pct(sorted, 0.99), perSec: sorted.length / (sorted.reduce((a, b) => a + b, 0) / 1e9) };
  });
  const mid = [...runs].sort((a, b) => a.p50 - b.p50)[Math.floor(runs.length / 2)]!;
  const firsts = ts.map((t) => t.firstNs).sort((a, b) => a - b);
  return { firstMs: firsts[Math.floor(firsts.length / 2)]! / 1e6, p50us: mid.p50 / 1e3, p99us: mid.p99 / 1e3, perSec: mid.perSec };
}
