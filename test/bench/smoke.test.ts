// `npm run bench` is not timed by the suite, but it must keep running: a full run was broken for a day
// (segments have no log/ objects to read) and nothing said so. This runs every section at sizes too small
// to measure anything (--smoke) and checks that each section of the last full run in BENCHMARKS.md is there.
// As `npm run bench` does, it compiles the suite first and runs what tsc made.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runScript } from '../../bench/child.js';

/** A section's heading with its numbers as N: a smoke run has 2 writer processes where a full one has 4. */
const shape = (heading: string) => heading.replace(/\d[\d,]*/g, 'N');

describe('npm run bench', () => {
  it('runs every section of the last full run, at smoke sizes, to the end', { timeout: 600_000 }, async () => {
    const doc = await readFile(new URL('../../BENCHMARKS.md', import.meta.url), 'utf8');
    const full = doc.slice(doc.indexOf('<!-- bench:begin -->'), doc.indexOf('<!-- bench:end -->'));
    const sections = full.split('\n').filter((l) => l.startsWith('### ')).map(shape);
    expect(sections.length).toBeGreaterThan(15);
    const root = new URL('../../', import.meta.url);
    await promisify(execFile)(process.execPath, [fileURLToPath(new URL('node_modules/typescript/bin/tsc', root)), '-p', fileURLToPath(new URL('tsconfig.bench.json', root))]);
    const out = await runScript(new URL('dist-bench/bench/main.js', root), ['--smoke']); // a failing run rejects with its stderr
    const ran = new Set(out.split('\n').filter((l) => l.startsWith('### ')).map(shape));
    expect(sections.filter((s) => !ran.has(s))).toEqual([]);
    expect(out).toMatch(/^Total time: \d+ s\.$/m);
  });
});
