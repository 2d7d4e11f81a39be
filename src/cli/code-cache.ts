// Runs the bundled `strata` command from V8's code cache (decision 0053). Every CLI call is a process, and
// compiling the command's JavaScript was a fifth of a call; Node 20 keeps no code cache for ES modules (22's
// module.enableCompileCache does), so the command is a CommonJS bundle compiled here through vm.Script, with
// the code V8 compiled in earlier calls handed back to it.
//
// The cache is V8's own serialization of the functions a call ran, taken as the process exits. It is written
// when there is none, when V8 refused the one there was (another Node, other flags), and when a command ran
// that it was not taken after: V8 compiles a function when first called, so what `info` compiled is not what
// `tag list` needs. Once every command a user runs has run once, no call writes it again.
//
// What it holds is run, so it is kept per user (XDG_CACHE_HOME, else ~/.cache, then stratalake/) and trusted
// only as far as the user alone can write it: the directory is made only inside a base the user owns and no
// one else can write, and each file is opened without following a link and used only if it is a regular file
// of this user's that no one else can write — checked on the open file, so a directory swapped after the
// check hands over nothing. New files are created exclusively under names nobody can guess, then renamed into
// place. V8 checks that a cache was made from this very source by this very V8, but by the source's length
// alone and not every byte of it in a release build, so a note beside it holds checksums of our own. A cache
// that cannot be read or written costs the call nothing but the compile.
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';
import { randomHex } from '../random.js';

/** What the cache beside the code says of it: its checksum, the code's, and the commands it was taken after. */
interface CacheNote {
  crc: number;
  /**
   * The CRC-32 of the code it was made from. V8 checks a cache against the code's length alone: handed the
   * cache of another source of the same length, it runs the code of the other (a test saw it).
   */
  source: number;
  commands: string[];
}

/** What a bundle's entry tells the launcher once it has parsed its command line (main.ts). */
export interface CommandRan {
  /** The command that ran, as its words ("tag list"); undefined until one has been picked. */
  command?: string;
}

/** Whether a file or directory found is this user's alone to write: theirs, and not writable by group or others. */
function onlyMine(found: { uid: number; mode: number }): boolean {
  return (process.getuid === undefined || found.uid === process.getuid()) && (found.mode & 0o022) === 0;
}

/**
 * Whether `dir` is a directory of this user's alone, made (0700) if it is not there and the directory above
 * it is one: nothing is made in a place another user owns or can write.
 */
function ownDirectory(dir: string): boolean {
  let found = lstatSync(dir, { throwIfNoEntry: false });
  if (found === undefined) {
    const above = lstatSync(path.dirname(dir), { throwIfNoEntry: false });
    if (above === undefined || !above.isDirectory() || !onlyMine(above)) return false;
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    found = lstatSync(dir);
  }
  return found.isDirectory() && onlyMine(found);
}

/**
 * The directory for this user's code caches, made if need be, or undefined where there is none that only
 * this user can write (no home, a base of another owner or open to others, a link) or where
 * NODE_DISABLE_COMPILE_CACHE (Node's own switch for its compile cache) is set. A missing base is made only
 * inside a directory of this user's: root running with a user's HOME would make a ~/.cache that user could
 * not write.
 */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env, home: () => string = homedir): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const base = env.XDG_CACHE_HOME || path.join(home(), '.cache');
    if (!path.isAbsolute(base)) return undefined;
    const dir = path.join(base, 'stratalake');
    return ownDirectory(base) && ownDirectory(dir) ? dir : undefined;
  } catch {
    // No home (a uid with no passwd entry and no HOME), or a base that cannot be looked at.
    return undefined;
  }
}

/**
 * What became of the cache a call found: V8 used it or refused it (made by another V8, or with other flags),
 * it was made from another source, it failed its checksum (or was not this user's alone), or there was none
 * (or no directory for one).
 */
export type CacheUse = 'used' | 'refused' | 'stale' | 'damaged' | 'none';

/**
 * Runs the CommonJS bundle `file` as Node would require it, compiled from the cache under `cacheDir` named
 * by `buildId` (the bundle's build), and leaves the cache fuller for the next call if this one compiled code
 * the cache lacked (see the top of this file). A call that fails does not count its command as seen: what it
 * ran is not what the command runs.
 */
export function runBundle(file: string, buildId: string, cacheDir: string | undefined): CacheUse {
  // The bundle keeps its entry's `#!` line, which is no JavaScript inside the function it is wrapped in;
  // commented out, every line keeps its number for stack traces.
  const code = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8').replace(/^#!/, '//')}\n})`;
  const codeCrc = crc32(code);
  const stem = cacheDir === undefined ? undefined : path.join(cacheDir, `${buildId}-node${process.versions.node}-${process.arch}`);
  const found = stem === undefined ? undefined : readCache(stem, codeCrc);
  const cached = typeof found === 'string' ? undefined : found;
  const script = new Script(code, { filename: file, cachedData: cached?.data });
  const module = { exports: {} as { ran?: CommandRan } };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  if (stem !== undefined) {
    process.once('exit', (status) => {
      const command = status === 0 ? module.exports.ran?.command : undefined;
      const fresh = cached !== undefined && !script.cachedDataRejected;
      if (fresh && (command === undefined || cached.note.commands.includes(command))) return;
      const commands = [...(fresh ? cached.note.commands : []), ...(command === undefined ? [] : [command])];
      writeCache(stem, script.createCachedData(), codeCrc, commands);
    });
  }
  run.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  if (found === undefined) return 'none';
  if (typeof found === 'string') return found;
  return script.cachedDataRejected ? 'refused' : 'used';
}

/** A file's bytes if it is a regular file of this user's alone, read through the descriptor checked; else undefined. */
function readOwn(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const found = fstatSync(fd);
    return found.isFile() && onlyMine(found) ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The cache and its note: 'damaged' if they do not agree or either is not this user's alone, 'stale' if it
 * was made from code other than that of CRC `code`, undefined if there is none.
 */
function readCache(stem: string, code: number): { data: Buffer; note: CacheNote } | 'damaged' | 'stale' | undefined {
  const [text, data] = [readOwn(`${stem}.json`), readOwn(`${stem}.v8`)];
  if (text === undefined && data === undefined && lstatSync(`${stem}.json`, { throwIfNoEntry: false }) === undefined) return undefined;
  if (text === undefined || data === undefined) return 'damaged';
  try {
    const note = JSON.parse(text.toString('utf8')) as CacheNote;
    if (crc32(data) !== note.crc || !Array.isArray(note.commands)) return 'damaged';
    return note.source === code ? { data, note } : 'stale';
  } catch {
    return 'damaged';
  }
}

/**
 * The cache, then its note, each created exclusively under a name nobody can guess (never through a link) and
 * renamed into place: each whole or not at all, and a note that names another cache fails its checksum.
 */
function writeCache(stem: string, data: Buffer, code: number, commands: string[]): void {
  const note: CacheNote = { crc: crc32(data), source: code, commands };
  for (const [file, bytes] of [[`${stem}.v8`, data], [`${stem}.json`, JSON.stringify(note)]] as const) {
    const temporary = `${file}.${randomHex(8)}.tmp`;
    try {
      const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        writeFileSync(fd, bytes);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, file);
    } catch {
      // A full or read-only disk: the next call compiles, as this one would have without a cache.
      rmSync(temporary, { force: true });
      return;
    }
  }
}
