// `strata shell`: statements typed at a prompt, one after another on one open catalog, as DuckDB's own shell
// takes them — a statement runs once a ";" ends it (statement-ends.ts), lines before continue it (the prompt
// says so), several on a line run in turn — each printed as `strata sql` prints it. A few dot commands:
// .help, .mode table|csv|json, .quit and .exit (as does the end of input). What was typed is kept in a
// history file across sessions (~/.strata_history, or STRATA_HISTORY; its owner's alone). A failing statement prints its code
// and message and the shell goes on; fed from a pipe, it exits 1 if any did.
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { Catalog } from '../catalog/catalog.js';
import { StrataError } from '../errors.js';
import { failureOf } from './failure.js';
import { write } from './output.js';
import { printResult, type SqlFormat } from './sql.js';
import { splitStatements } from './statement-ends.js';

export interface ShellOptions {
  format: SqlFormat;
  /** Rows the table view shows of a result. */
  limit: number;
  /** Whether a person types at a terminal: prompts and line editing then. */
  interactive: boolean;
}

/** Lines of history kept (the file keeps them all; the shell recalls the newest). */
const HISTORY_SIZE = 1000;

const historyFile = () => process.env.STRATA_HISTORY ?? path.join(homedir(), '.strata_history');

const HELP = `Statements end with ";" and may span lines. Dot commands:
  .help                 this text
  .mode table|csv|json  how results print
  .quit, .exit          leave (so does Ctrl-D)
`;

/** Runs the shell on `c` until its input ends or .quit; returns how many statements failed. */
export async function shell(c: Catalog, where: string, o: ShellOptions): Promise<number> {
  const file = historyFile();
  const history = o.interactive ? await pastLines(file) : [];
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: o.interactive, history, historySize: HISTORY_SIZE, prompt: 'strata> ' });
  let format = o.format;
  let pending = '';
  let failed = 0;
  const prompt = () => {
    if (!o.interactive) return;
    rl.setPrompt(pending.trim() === '' ? 'strata> ' : '   ...> ');
    rl.prompt();
  };
  if (o.interactive) await write(`strata shell on ${where}: statements end with ";", .help for more\n`);
  prompt();
  for await (const line of rl) {
    // Only its owner reads it: a statement may hold what a password does.
    if (o.interactive && line.trim() !== '') await appendFile(file, `${line}\n`, { mode: 0o600 }).catch(() => undefined);
    if (pending.trim() === '' && line.trim().startsWith('.')) {
      const [command, arg] = line.trim().split(/\s+/);
      if (command === '.quit' || command === '.exit') break;
      if (command === '.help') await write(HELP);
      else if (command === '.mode' && (arg === 'table' || arg === 'csv' || arg === 'json')) format = arg;
      else await failure(new StrataError('INVALID_ARGUMENT', `${line.trim()}: the shell knows .help, .mode table|csv|json, .quit and .exit`)), failed++;
      prompt();
      continue;
    }
    const { whole, rest } = splitStatements(`${pending}${line}\n`);
    pending = rest;
    for (const statement of whole) {
      const started = performance.now();
      try {
        await printResult(c.sqlBatches(statement), { format, limit: o.limit, started });
      } catch (e) {
        await failure(e);
        failed++;
      }
    }
    prompt();
  }
  rl.close();
  if (pending.trim() !== '') {
    await failure(new StrataError('INVALID_ARGUMENT', `the input ended inside a statement (no ";" after ${JSON.stringify(pending.trim().slice(0, 60))}); nothing of it ran`));
    failed++;
  }
  return failed;
}

/**
 * The newest lines of the history file, newest first (as readline keeps them); none if there is no file yet.
 * A file grown past twice what is recalled is cut to what is.
 */
async function pastLines(file: string): Promise<string[]> {
  const lines = (await readFile(file, 'utf8').catch(() => '')).split('\n').filter((l) => l.trim() !== '');
  const kept = lines.slice(-HISTORY_SIZE);
  if (lines.length > 2 * HISTORY_SIZE) await writeFile(file, `${kept.join('\n')}\n`, { mode: 0o600 }).catch(() => undefined);
  return kept.reverse();
}

/** A failed statement, said as a failed command is (failure.ts), and the shell goes on. */
async function failure(e: unknown): Promise<void> {
  const { code, message } = failureOf(e);
  process.stderr.write(`${code}: ${message}\n`);
}
