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
// It is kept per user (XDG_CACHE_HOME, else ~/.cache, then stratalake/), in a directory only that user may
// write, since what it holds is run: a directory another user could write to is not used. V8 checks that a
// cache was made from this very source by this very V8, but not every byte of it in a release build, so a
// checksum of our own is kept beside it: a damaged cache is not handed to V8 and is written again. A cache
// that cannot be read or written costs the call nothing but the compile.
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';

/** What the cache beside the code says of it: its checksum, the source's, and the commands it was taken after. */
interface CacheNote {
  crc: number;
  /**
   * The CRC-32 of the source it was made from. V8 checks a cache against the source's length alone: handed
   * the cache of another source of the same length, it runs the code of the other (a test saw it).
   */
  source: number;
  commands: string[];
}

/** What a bundle's entry tells the launcher once it has parsed its command line (main.ts). */
export interface CommandRan {
  /** The command that ran, as its words ("tag list"); undefined until one has been picked. */
  command?: string;
}

/**
 * The directory for this user's code caches, made if need be, or undefined where there is none that only
 * this user can write (no home, another owner, a directory open to others) or where NODE_DISABLE_COMPILE_CACHE
 * (Node's own switch for its compile cache) is set.
 */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const base = env.XDG_CACHE_HOME || (homedir() === '' ? undefined : path.join(homedir(), '.cache'));
  if (base === undefined || !path.isAbsolute(base)) return undefined;
  const dir = path.join(base, 'stratalake');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const found = lstatSync(dir);
    const mine = process.getuid === undefined || found.uid === process.getuid();
    return found.isDirectory() && mine && (found.mode & 0o022) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What became of the cache a call found: V8 used it or refused it (made by another V8, or with other flags),
 * it was made from another source, it failed its checksum, or there was none (or no directory for one).
 */
export type CacheUse = 'used' | 'refused' | 'stale' | 'damaged' | 'none';

/**
 * Runs the CommonJS bundle `file` as Node would require it, compiled from the cache under `cacheDir` named
 * by `buildId` (the bundle's build), and leaves the cache fuller for the next call if this one compiled code
 * the cache lacked (see the top of this file).
 */
export function runBundle(file: string, buildId: string, cacheDir: string | undefined): CacheUse {
  // The bundle keeps its entry's `#!` line, which is no JavaScript inside the function it is wrapped in;
  // commented out, every line keeps its number for stack traces.
  const source = readFileSync(file, 'utf8').replace(/^#!/, '//');
  const stem = cacheDir === undefined ? undefined : path.join(cacheDir, `${buildId}-node${process.versions.node}-${process.arch}`);
  const sourceCrc = crc32(source);
  const found = stem === undefined ? undefined : readCache(stem, sourceCrc);
  const cached = typeof found === 'string' ? undefined : found;
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData: cached?.data,
  });
  const module = { exports: {} as { ran?: CommandRan } };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  if (stem !== undefined) {
    process.once('exit', () => {
      const command = module.exports.ran?.command;
      const fresh = cached !== undefined && !script.cachedDataRejected;
      if (fresh && (command === undefined || cached.note.commands.includes(command))) return;
      const commands = [...(fresh ? cached.note.commands : []), ...(command === undefined ? [] : [command])];
      writeCache(stem, script.createCachedData(), sourceCrc, commands);
    });
  }
  run.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  if (found === undefined) return 'none';
  if (typeof found === 'string') return found;
  return script.cachedDataRejected ? 'refused' : 'used';
}

/**
 * The cache and its note: 'damaged' if they do not agree, 'stale' if it was made from a source other than the
 * one of CRC `source`, undefined if there is none to read.
 */
function readCache(stem: string, source: number): { data: Buffer; note: CacheNote } | 'damaged' | 'stale' | undefined {
  let text: string;
  let data: Buffer;
  try {
    text = readFileSync(`${stem}.json`, 'utf8');
    data = readFileSync(`${stem}.v8`);
  } catch {
    return undefined;
  }
  try {
    const note = JSON.parse(text) as CacheNote;
    if (crc32(data) !== note.crc || !Array.isArray(note.commands)) return 'damaged';
    return note.source === source ? { data, note } : 'stale';
  } catch {
    return 'damaged';
  }
}

/** The cache, then its note, each whole or not at all: a note that names another cache fails its checksum. */
function writeCache(stem: string, data: Buffer, source: number, commands: string[]): void {
  const note: CacheNote = { crc: crc32(data), source, commands };
  try {
    for (const [file, bytes] of [[`${stem}.v8`, data], [`${stem}.json`, JSON.stringify(note)]] as const) {
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, bytes, { mode: 0o600 });
      renameSync(temporary, file);
    }
  } catch {
    // A full or read-only disk: the next call compiles, as this one would have without a cache.
  }
}
