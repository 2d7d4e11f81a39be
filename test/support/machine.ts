// Tests that need something of the machine (strace, the right to mount) skip where it is missing on a
// developer's machine, and fail under CI (CI=1) instead: the strace suite is the only check of the fsync
// order and the tmpfs suite the only check of a full disk, so a skip there would hide that they never ran.

/** `present`, or under CI an error that says what is missing and how to provide it. */
export function machineHas(what: string, present: boolean, remedy: string): boolean {
  if (!present && process.env.CI) throw new Error(`CI must run the tests that need ${what}, and this machine lacks it: ${remedy}`);
  return present;
}
