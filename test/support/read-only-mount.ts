// A directory made read-only the way a read-only disk is: bound onto itself and remounted read-only (chmod
// stops no root process, and these tests may run as root). Needs the right to mount: where this process
// lacks it, `canMountReadOnly` is false and the tests that need one say they were skipped (under CI, they fail).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { machineHas } from './machine.js';

function mountReadOnly(dir: string): boolean {
  if (spawnSync('mount', ['--bind', dir, dir]).status !== 0) return false;
  if (spawnSync('mount', ['-o', 'remount,bind,ro', dir]).status === 0) return true;
  spawnSync('umount', ['-l', dir]);
  return false;
}

const probe = path.join(process.env.TMPDIR ?? '/tmp', `strata-ro-probe-${process.pid}`);
mkdirSync(probe, { recursive: true });
export const canMountReadOnly = machineHas(
  'a read-only bind mount',
  mountReadOnly(probe) && spawnSync('umount', [probe]).status === 0,
  'run as root with CAP_SYS_ADMIN (a container: --cap-add SYS_ADMIN or --privileged), with mount and umount on the PATH',
);
rmSync(probe, { recursive: true, force: true });

/** Runs `body` while `dir` is mounted read-only; unmounted afterwards, whatever happens. */
export async function whileReadOnly<T>(dir: string, body: () => Promise<T>): Promise<T> {
  if (!mountReadOnly(dir)) throw new Error(`could not mount ${dir} read-only`);
  try {
    return await body();
  } finally {
    spawnSync('umount', ['-l', dir]);
  }
}
