// npm run mutate: StrykerJS over the modules that keep the promises (test/mutation/groups.ts), one group at a
// time, and a line per group with its score and time. docs/mutation-testing.md says what each result means.
//
//   npm run mutate                          every group
//   npm run mutate -- gc log                those groups
//   npm run mutate -- --mutate keys/visibility.ts[,…]   those files, each with the tests of its group
//   npm run mutate -- --changed [BASE]      the group files changed since BASE (default main): before a merge
//   … --concurrency N                       test runner processes (default 2: this is a 2-core machine)
//   … --ignore-static                       skip static mutants (each runs all of its group's tests): a quick look
//
// Results are kept in reports/mutation/ (not in git); a run after a change tests again only what it touched.
// Delete reports/mutation/GROUP.incremental.json to test every mutant of a group anew.
import { execFileSync } from 'node:child_process';
import { Stryker } from '@stryker-mutator/core';
import { GROUPS } from './groups.js';

interface Run {
  group: string;
  mutate: string[];
}

function parse(argv: string[]): { runs: Run[]; concurrency: number; ignoreStatic: boolean } {
  let concurrency = 2;
  let ignoreStatic = false;
  let only: Set<string> | undefined;
  let changed = false;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--concurrency') concurrency = Number(argv[++i]);
    else if (arg === '--ignore-static') ignoreStatic = true;
    else if (arg === '--mutate') only = new Set(argv[++i]!.split(','));
    else if (arg === '--changed') {
      changed = true;
      only = changedSince(argv[i + 1]?.startsWith('-') === false ? argv[++i]! : 'main');
    } else if (arg in GROUPS) names.push(arg);
    else throw new Error(`npm run mutate: ${arg} is no option and no group (groups: ${Object.keys(GROUPS).join(', ')})`);
  }
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('npm run mutate: --concurrency takes a whole number of processes');
  const runs = (names.length > 0 ? names : Object.keys(GROUPS))
    .map((group) => ({ group, mutate: GROUPS[group]!.mutate().filter((m) => only === undefined || only.has(fileOf(m))) }))
    .filter((r) => r.mutate.length > 0);
  if (only !== undefined && !changed) {
    const covered = new Set(runs.flatMap((r) => r.mutate.map(fileOf)));
    const outside = [...only].filter((f) => !covered.has(f));
    if (outside.length > 0) throw new Error(`npm run mutate: ${outside.join(', ')} is in no mutation group named (test/mutation/groups.ts)`);
  }
  if (runs.length === 0) console.log('npm run mutate: no module of a mutation group changed');
  return { runs, concurrency, ignoreStatic };
}

const fileOf = (mutate: string) => mutate.replace(/:\d+-\d+$/, '');

/** The files changed between the commit this branch left `base` at and the work tree (committed or not). */
function changedSince(base: string): Set<string> {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  return new Set(git('diff', '--name-only', git('merge-base', base, 'HEAD')).split('\n').filter(Boolean));
}

async function mutate({ group, mutate }: Run, concurrency: number, ignoreStatic: boolean) {
  // The vitest config of the run reads it (so do Stryker's worker processes, which inherit it).
  process.env.MUTATE_GROUP = group;
  const started = Date.now();
  const results = await new Stryker({
    testRunner: 'vitest',
    plugins: ['@stryker-mutator/vitest-runner'],
    vitest: { configFile: 'test/mutation/vitest.config.ts', related: true },
    // Each mutant runs only the tests that executed it in the first run.
    coverageAnalysis: 'perTest',
    mutate,
    concurrency,
    ignoreStatic,
    // A mutant that loops forever is stopped after twice its tests' time plus 20 s: the machine is shared.
    timeoutFactor: 2,
    timeoutMS: 20_000,
    tempDirName: '.stryker-tmp',
    // A second run tests again only the mutants whose code or covering tests changed since the first.
    incremental: true,
    incrementalFile: `reports/mutation/${group}.incremental.json`,
    reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
    clearTextReporter: { allowColor: false, logTests: false },
    jsonReporter: { fileName: `reports/mutation/${group}.json` },
    htmlReporter: { fileName: `reports/mutation/${group}.html` },
    thresholds: { high: 95, low: 85, break: null },
  }).runMutationTest();
  const count = (...statuses: string[]) => results.filter((r) => statuses.includes(r.status)).length;
  const detected = count('Killed', 'Timeout');
  const missed = count('Survived', 'NoCoverage');
  const score = detected + missed === 0 ? 100 : (100 * detected) / (detected + missed);
  return `${group}: ${score.toFixed(1)}% (${detected} killed or timed out, ${missed} survived or not covered, ${count('Ignored')} ignored) in ${Math.round((Date.now() - started) / 60_000)} min`;
}

let parsed: ReturnType<typeof parse>;
try {
  parsed = parse(process.argv.slice(2));
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}
const { runs, concurrency, ignoreStatic } = parsed;
const lines: string[] = [];
for (const run of runs) lines.push(await mutate(run, concurrency, ignoreStatic));
console.log(['', 'Mutation scores (reports/mutation/GROUP.html):', ...lines].join('\n'));
