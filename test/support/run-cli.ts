// Runs the `strata` command from source in a child process (as a user would), with its exit code and output.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export async function runCli(...args: string[]): Promise<{ code: number | string; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', main, ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string; killed?: boolean };
    return { code: err.killed ? 'killed' : err.code, stdout: err.stdout, stderr: err.stderr };
  }
}
