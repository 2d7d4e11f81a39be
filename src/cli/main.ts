#!/usr/bin/env node
// The `strata` command (and `stratalake`): runs the program (program.ts) and turns what went wrong into an
// exit code — 0 done, 1 the command failed, 2 the command line is wrong — and a message on stderr, as JSON
// ({ error: { code, message } }) with --json. Whatever fails, and wherever (an event, a stream), a person
// sees a code and a message (failure.ts), never a stack trace; a reader that closed the pipe sees nothing.
import { type Command, CommanderError } from 'commander';
import type { CommandRan } from './code-cache.js';
import { failureOf } from './failure.js';
import { printable } from './format.js';
import { OutputClosed } from './output.js';
import { program } from './program.js';
import { packageVersion } from './version.js';

// The AWS SDK warns on every run under Node 20 that its releases after January 2027 need Node 22: nine lines
// before each answer from an S3 store, about versions this package (which pins its SDK) does not use.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const fail = (code: string, message: string, exit: number) => {
  console.error(asJson ? JSON.stringify({ error: { code, message } }) : printable(`strata: ${code === 'USAGE' ? '' : `${code}: `}${message}`));
  process.exitCode = exit;
};
const failWith = (e: unknown) => {
  const f = failureOf(e);
  fail(f.code, f.message, f.exit);
};

process.on('uncaughtException', (e) => {
  failWith(e);
  process.exit(1);
});
process.on('unhandledRejection', (e) => {
  failWith(e);
  process.exit(1);
});

/** Which command ran, for the launcher that keeps the command's code cache (code-cache.ts). */
export const ran: CommandRan = {};

// Commander prints its own messages (unknown option, missing argument, …), but with --json they are JSON.
const cli = program(packageVersion(), asJson);
cli.hook('preAction', (_root, action) => {
  const words: string[] = [];
  for (let c: Command | null = action; c !== null && c !== cli; c = c.parent) words.unshift(c.name());
  ran.command = words.join(' ');
});
cli.parseAsync(process.argv).catch((e: unknown) => {
  if (e instanceof CommanderError) {
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') {
      process.exitCode = 0;
      return;
    }
    if (asJson) fail('USAGE', e.message.replace(/^error: /, ''), 2);
    else process.exitCode = 2;
    return;
  }
  // A reader that stopped reading (`strata sql … | head`) wants no more output, and no complaint either.
  if (e instanceof OutputClosed) return;
  failWith(e);
});
