// The modules that keep the promises, in the groups `npm run mutate` runs one at a time, each with the test
// files that own its concerns. A mutant runs only the tests that cover it, but a static mutant (one that acts
// while a module loads: a table of rules, a constant) runs every test file of its group with the module
// loaded anew, so a group lists the tests that can kill its mutants and not the whole suite. Nor a test
// that works through a child process (the kill trials of durability.test.ts, the CLI's tests): the child
// runs with no mutant active, so it cannot kill one, and it costs minutes a run.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Group {
  /**
   * What Stryker mutates: files, or `file:first-last` for the lines of one concern inside a larger file. A
   * function, read when a run starts: a sandbox holds the instrumented sources, whose lines are not these.
   */
  mutate: () => string[];
  tests: string[];
}

const root = join(import.meta.dirname, '..', '..');

/** The group's tests of a folder of test/, every test file in it. */
function testsIn(dir: string): string[] {
  return readdirSync(join(root, dir))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `${dir}/${f}`);
}

/**
 * `file:first-last`, the lines from the one holding `from` to the end of the top-level function or class
 * that holds `to` (its closing `}` at the start of a line). Found by text, not by line number, so that an edit
 * above it does not move the range; a marker that is gone stops the run instead of mutating the wrong lines.
 */
export function span(file: string, from: string, to: string): string {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const first = lines.findIndex((l) => l.includes(from));
  const last = lines.findIndex((l) => l.includes(to));
  const end = last < 0 ? -1 : lines.findIndex((l, i) => i >= last && l === '}');
  if (first < 0 || end < 0) throw new Error(`mutation span of ${file}: no line holds ${JSON.stringify(first < 0 ? from : to)}`);
  return `${file}:${first + 1}-${end + 1}`;
}

const LOG_FRAMING = 'keys/framing.ts';
const VISIBILITY = 'keys/visibility.ts';

export const GROUPS: Record<string, Group> = {
  conflicts: {
    mutate: () => ['src/txn/conflicts.ts'],
    tests: ['test/txn/conflict-rules.test.ts', 'test/txn/conflict-check.test.ts', 'test/catalog/conflicts.test.ts', 'test/catalog/conflict-excision.test.ts'],
  },
  gc: {
    mutate: () => readdirSync(join(root, 'gc'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `gc/${f}`),
    tests: testsIn('test/gc'),
  },
  log: {
    mutate: () => [LOG_FRAMING, 'src/log/segment-file.ts', 'src/log/segment-files.ts', 'src/log/object-log.ts', 'src/log/segment-log.ts'],
    tests: [
      ...testsIn('test/log'),
      'test/keys/framing.test.ts',
      'test/keys/framing-edges.test.ts',
      'test/catalog/store-damage.test.ts',
      'test/catalog/store-faults.test.ts',
      'test/catalog/fencing.test.ts',
      'test/catalog/index-ahead.test.ts',
    ],
  },
  visibility: {
    mutate: () => [VISIBILITY],
    tests: ['test/keys/visibility.test.ts', 'test/catalog/visibility.property.test.ts'],
  },
  snapshots: {
    mutate: () => [
      'src/snapshot-names.ts',
      span('src/sql/statement.ts', 'const INTEGER_LITERAL', 'function described('),
      span('src/sql/query.ts', 'async function bindScans(', 'async function snapshotOf('),
    ],
    tests: ['test/snapshot-names.test.ts', 'test/snapshot-names-edges.test.ts', 'test/sql/at-clause.test.ts', 'test/sql/sql-read.test.ts', 'test/sql/sql-transaction.test.ts', 'test/catalog/time-travel.test.ts'],
  },
  keys: {
    mutate: () => readdirSync(join(root, 'keys'))
      .map((f) => `keys/${f}`)
      .filter((f) => f.endsWith('.ts') && f !== LOG_FRAMING && f !== VISIBILITY),
    tests: [
      ...testsIn('test/keys'),
      'test/fuzz/decoders.fuzz.test.ts',
      'test/catalog/history.test.ts',
      'test/catalog/stable-ids.test.ts',
      'test/catalog/verify.test.ts',
      'test/gc/retention.test.ts',
    ],
  },
};
