// Making a directory and what is missing above it, one level at a time. Node's `mkdir({ recursive: true })`
// never returns where a parent exists but refuses new entries with ENOENT (`/proc/self`): it climbs to the
// parent, finds it there, and tries the child again, forever. What cannot be made is a StrataError that says
// why and what to do: a file in the way, a read-only disk, a full one, a permission.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StrataError } from './errors.js';
import { fileSystemProblem } from './messages.js';

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
    if (code !== 'ENOENT') throw cannotMake(target, e);
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
    throw cannotMake(target, e);
  }
  return first ?? target;
}

/** Why `target` could not be made, as a StrataError. */
function cannotMake(target: string, e: unknown): StrataError {
  if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') {
    const file = fileAbove(target);
    return new StrataError('INVALID_ARGUMENT', `cannot make directory ${target}: ${file ?? 'a path above it'} is a file, not a directory; give a path where a directory can be made`, { cause: e });
  }
  const problem = fileSystemProblem(e);
  const advice = problem === undefined ? (e as Error).message : `${problem}; give a directory on a disk this process can write to`;
  return new StrataError('STORE_UNAVAILABLE', `cannot make directory ${target}: ${advice}`, { cause: e });
}

/** The nearest path above `target` that exists and is not a directory. */
function fileAbove(target: string): string | undefined {
  for (let p = path.dirname(target); p !== path.dirname(p); p = path.dirname(p)) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(p, { throwIfNoEntry: false });
    } catch {
      continue; // ENOTDIR: the file is higher up
    }
    if (stat !== undefined) return stat.isDirectory() ? undefined : p;
  }
  return undefined;
}
