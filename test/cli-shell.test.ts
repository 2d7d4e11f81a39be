// `strata shell`: statements end at a ";" outside strings, quoted names, dollar quotes and comments (a property
// test against statements built from such parts); fed from a pipe, each statement prints as `strata sql`
// prints it, a failing one says why and the rest still run (exit 1); at a terminal (a pseudo-terminal from
// script(1)), the prompt continues a statement across lines and what was typed is recalled in the next session.
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitStatements } from '../src/cli/statement-ends.js';
import { tempDir } from './helpers.js';
import { runCli, runCliWith } from './support/run-cli.js';

describe('where typed statements end', () => {
  it('at a ";" outside every kind of quote and comment, whatever they hold', () => {
    const inert = fc.constantFrom(';', "'", '"', '--', '/*', '*/', '$$', '\n', 'x', ' ', '\\');
    const text = fc.array(inert, { maxLength: 6 }).map((xs) => xs.join(''));
    const part = fc.oneof(
      fc.constantFrom('SELECT 1', 'FROM t', ' ', '\n', 'x', 'E'),
      text.map((s) => `'${s.replaceAll("'", "''")}'`),
      text.map((s) => `"${s.replaceAll('"', '""')}"`),
      text.map((s) => `E'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`),
      text.filter((s) => !s.includes('$q$')).map((s) => `$q$${s}$q$`),
      text.filter((s) => !s.includes('\n')).map((s) => `-- ${s}\n`),
      text.filter((s) => !s.includes('*/') && !s.includes('/*')).map((s) => `/* ${s} */`),
      // Block comments nest, as DuckDB reads them.
      fc.tuple(text, text).filter(([a, b]) => ![a, b].some((s) => s.includes('*/') || s.includes('/*'))).map(([a, b]) => `/* ${a} /* ${b} */ ${a} */`),
    );
    const statement = fc.array(part, { minLength: 1, maxLength: 6 }).map((ps) => `SELECT ${ps.join(' ')}`);
    fc.assert(
      fc.property(fc.array(statement, { minLength: 1, maxLength: 4 }), fc.boolean(), (statements, begun) => {
        const typed = statements.map((s) => `${s};`).join('\n') + (begun ? '\nSELECT 2' : '');
        const { whole, rest } = splitStatements(typed);
        expect(whole).toEqual(statements.map((s) => `${s};`.trim()));
        expect(rest.trim()).toBe(begun ? 'SELECT 2' : '');
      }),
      { numRuns: 2000 },
    );
    // An unterminated string or comment holds the rest: nothing after it ends a statement.
    expect(splitStatements("SELECT 'a; b").whole).toEqual([]);
    expect(splitStatements('SELECT 1 /* ; */ ; SELECT 2 -- ;\n;')).toEqual({ whole: ['SELECT 1 /* ; */ ;', 'SELECT 2 -- ;\n;'], rest: '' });
    // A -- comment ends at a carriage return too; comments alone are no statement, and after the last one nothing is begun.
    expect(splitStatements('SELECT 1 -- x\r; SELECT 2;')).toEqual({ whole: ['SELECT 1 -- x\r;', 'SELECT 2;'], rest: '' });
    expect(splitStatements('/* only */ ; -- just this\n; SELECT 3; -- done\n/* and this */')).toEqual({ whole: ['SELECT 3;'], rest: '' });
  });
});

describe('strata shell', () => {
  it('from a pipe: each statement as strata sql prints it, several on a line or one over several; a failure said, the rest run, exit 1', async () => {
    const dir = await tempDir();
    await runCli('init', '--dir', dir);
    await runCli('sql', 'CREATE TABLE t (id INTEGER, s VARCHAR)', '--dir', dir);
    const input = ["INSERT INTO t VALUES (1, 'a;b'),", "  (2, 'c -- not a comment'); -- the rows", '/* nothing */;', 'SELECT * FROM t ORDER BY id; SELEC 1;', '.mode csv', 'SELECT s FROM t', 'ORDER BY id DESC; -- the end', ''].join('\n');
    const r = await runCliWith({ input }, 'shell', '--dir', dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^INVALID_ARGUMENT: the statement does not parse: syntax error at or near "SELEC"/);
    const same = async (statement: string, ...flags: string[]) => (await runCli('sql', statement, '--dir', dir, ...flags)).stdout.replace(/, \d+ ms\)/g, ')');
    const printed = r.stdout.replace(/, \d+ ms\)/g, ')');
    expect(printed).toContain(await same('SELECT * FROM t ORDER BY id'));
    expect(printed.endsWith(await same('SELECT s FROM t ORDER BY id DESC', '--csv'))).toBe(true);
    expect((await runCli('sql', 'SELECT count(*) AS n FROM t', '--dir', dir, '--csv')).stdout).toBe('n\n2\n');
    // Input that ends inside a statement runs none of it.
    const cut = await runCliWith({ input: "INSERT INTO t VALUES (3, 'x');\nINSERT INTO t VALUES (4, 'never'" }, 'shell', '--dir', dir);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/the input ended inside a statement .* nothing of it ran/);
    expect((await runCli('sql', 'SELECT list(id ORDER BY id) AS ids FROM t', '--dir', dir, '--csv')).stdout).toBe('ids\n"[1, 2, 3]"\n');
  }, 120_000);

  it('at a terminal: a prompt that continues a statement, and history recalled in the next session', async () => {
    const dir = await tempDir();
    await runCli('init', '--dir', dir);
    const history = path.join(dir, 'history');
    const first = await atTerminal(dir, history, ['SELECT 6 *', '7 AS answer;', '.quit']);
    expect(first).toMatch(/strata> /);
    expect(first).toMatch(/\.\.\.> /);
    expect(first).toMatch(/answer\r?\n-+\r?\n42/);
    // Its owner's alone: a statement may hold what a password does.
    expect((await stat(history)).mode & 0o777).toBe(0o600);
    // Up three times: past the line just typed and the last session's .quit, to the line that ends the statement begun here.
    const second = await atTerminal(dir, history, ['SELECT 6 *', '\u001b[A\u001b[A\u001b[A', '.quit']);
    expect(second).toMatch(/answer\r?\n-+\r?\n42/);
  }, 120_000);
});

const tsx = createRequire(import.meta.url).resolve('tsx');
const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

/** A shell session at a pseudo-terminal (script(1)): each line typed once the prompt before it shows. */
function atTerminal(dir: string, history: string, lines: string[]): Promise<string> {
  const command = `${process.execPath} --import ${tsx} ${main} shell --dir ${dir}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, STRATA_HISTORY: history }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let typed = 0;
  let prompts = 0;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.kill(), reject(new Error(`no end of the session; it printed ${JSON.stringify(out)}`))), 60_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const seen = out.split(/strata> |\.\.\.> /).length - 1;
      if (seen > prompts && typed < lines.length) {
        prompts = seen;
        // A moment after the prompt shows: readline reads the terminal once the prompt is written.
        const line = lines[typed++]!;
        setTimeout(() => child.stdin.write(`${line}\r`), 200);
      }
    });
    child.on('exit', () => (clearTimeout(timer), resolve(out)));
  });
}
