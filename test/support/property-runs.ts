// How many cases a property test runs: enough by default to catch the mutants it was measured against, and
// more on demand (PROPERTY_RUNS_FACTOR=10 npx vitest run …) for a longer search than the suite can afford.

const factor = Number(process.env.PROPERTY_RUNS_FACTOR ?? 1);
if (!(factor > 0)) throw new Error(`PROPERTY_RUNS_FACTOR must be a positive number, got ${process.env.PROPERTY_RUNS_FACTOR}`);

/** `runs` cases, times PROPERTY_RUNS_FACTOR. */
export function propertyRuns(runs: number): number {
  return Math.max(1, Math.round(runs * factor));
}
