#!/usr/bin/env node
// The `strata` command (and `stratalake`): runs the program (program.ts) and turns what went wrong into an
// exit code — 0 done, 1 the command failed, 2 the command line is wrong — and a message on stderr, as JSON
// ({ error: { code, message } }) with --json.
import { CommanderError } from 'commander';
import { StrataError } from '../errors.js';
import { UsageError } from './context.js';
import { printable } from './format.js';
import { program } from './program.js';
import { packageVersion } from './version.js';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const fail = (code: string, message: string, exit: number) => {
  console.error(asJson ? JSON.stringify({ error: { code, message } }) : printable(`strata: ${code === 'USAGE' ? '' : `${code}: `}${message}`));
  process.exitCode = exit;
};

// Commander prints its own messages (unknown option, missing argument, …), but with --json they are JSON.
program(packageVersion(), asJson).parseAsync(process.argv).catch((e: unknown) => {
  if (e instanceof CommanderError) {
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') {
      process.exitCode = 0;
      return;
    }
    if (asJson) fail('USAGE', e.message.replace(/^error: /, ''), 2);
    else process.exitCode = 2;
    return;
  }
  if (e instanceof UsageError) return fail('USAGE', e.message, 2);
  if (e instanceof StrataError) return fail(e.code, e.message, 1);
  console.error(e);
  process.exitCode = 1;
});
