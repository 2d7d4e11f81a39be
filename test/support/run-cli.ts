// Runs the `strata` command from source in a child process (as a user would), with its exit code and output.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
// By path, not by name: a child run in another directory would look for the name there.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface CliResult {
  code: number | string;
  stdout: string;
  stderr: string;
}

export function runCli(...args: string[]): Promise<CliResult> {
  return runCliWith({}, ...args);
}

/** The same, in another working directory, with more environment variables, or `input` on its standard input (else none: it is closed). */
export async function runCliWith(options: { cwd?: string; env?: Record<string, string>; input?: string }, ...args: string[]): Promise<CliResult> {
  try {
    const running = promisify(execFile)(process.execPath, ['--import', tsx, main, ...args], {
      timeout: 60_000,
      maxBuffer: 256 * 2 ** 20,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.env === undefined ? {} : { env: { ...process.env, ...options.env } }),
    });
    running.child.stdin?.end(options.input ?? '');
    const { stdout, stderr } = await running;
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string; killed?: boolean };
    return { code: err.killed ? 'killed' : err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** The command started and left running (a server), for the test to talk to and stop. */
export function spawnCli(env: Record<string, string>, ...args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', tsx, main, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}
