// Making a directory and what is missing above it, one level at a time. Node's `mkdir({ recursive: true })`
// never returns where a parent exists but refuses new entries with ENOENT (`/proc/self`): it climbs to the
// parent, finds it there, and tries the child again, forever.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StrataError } from './errors.js';

/** Makes `dir` and its missing parents; returns the first directory it made (as mkdir -p), or undefined. */
export function makeDirs(dir: string): string | undefined {
  const target = path.resolve(dir);
  try {
    fs.mkdirSync(target);
    return target;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if (fs.statSync(target).isDirectory()) return undefined;
      throw new StrataError('INVALID_ARGUMENT', `${target} exists and is not a directory; give a directory, or a path where one can be made`);
    }
    if (code !== 'ENOENT') throw e;
  }
  const parent = path.dirname(target);
  if (parent === target) throw new StrataError('INVALID_ARGUMENT', `cannot make directory ${target}`);
  const first = makeDirs(parent);
  try {
    fs.mkdirSync(target);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && fs.statSync(target).isDirectory()) return first;
    if (code === 'ENOENT') {
      throw new StrataError(
        'INVALID_ARGUMENT',
        `cannot make directory ${target}: ${parent} exists but takes no new entries (a virtual file system such as /proc?); give a directory on a real disk`,
      );
    }
    throw e;
  }
  return first ?? target;
}
