// `npm run bench` is not timed by the suite, but it must keep running: a full run was broken for a day
// (segments have no log/ objects to read) and nothing said so. This runs every section at sizes too small
// to measure anything (--smoke) and checks that each section of the last full run in BENCHMARKS.md is there.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A section's heading with its numbers as N: a smoke run has 2 writer processes where a full one has 4. */
const shape = (heading: string) => heading.replace(/\d[\d,]*/g, 'N');

function smokeRun(): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'bench/main.ts', '--smoke'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('exit', (code) => resolve({ code, out, err }));
  });
}

describe('npm run bench', () => {
  it('runs every section of the last full run, at smoke sizes, to the end', { timeout: 600_000 }, async () => {
    const doc = await readFile(`${root}BENCHMARKS.md`, 'utf8');
    const full = doc.slice(doc.indexOf('<!-- bench:begin -->'), doc.indexOf('<!-- bench:end -->'));
    const sections = full.split('\n').filter((l) => l.startsWith('### ')).map(shape);
    expect(sections.length).toBeGreaterThan(15);
    const { code, out, err } = await smokeRun();
    expect(code, err.slice(-2000)).toBe(0);
    const ran = new Set(out.split('\n').filter((l) => l.startsWith('### ')).map(shape));
    expect(sections.filter((s) => !ran.has(s))).toEqual([]);
    expect(out).toMatch(/^Total time: \d+ s\.$/m);
  });
});
