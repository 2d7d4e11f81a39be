// DuckDB, the data plane, confined to the lake (docs/DESIGN.md §8.1, decision 0030). Three kinds of in-memory
// instance, each with its configuration locked, no extension installed or loaded and no persistent secret:
// - the executor runs statements: it reads the lake's files (the directory store's data path, or the local
//   cache of S3's) and the catalog's scratch directory (the Parquet a write makes before it is stored, and
//   DuckDB's spill), and nothing else;
// - the planner parses and plans what a caller wrote (json_serialize_sql, json_serialize_plan over the
//   mirror) and reaches no file at all, so planning a statement acts on nothing (EXPORT DATABASE makes its
//   directory while it binds, CREATE SECRET looks for its directory);
// - a host instance, made for one statement that opted in to host files and closed after it, reaches those
//   files and the statement's own scratch directory: it loads the rows of a host file into Parquet there
//   (host-files.ts), which the executor then reads.
// A statement runs in a Session: its connections are interrupted when it is stopped (stop.ts), and its files
// live in a scratch directory of its own, removed when it ends. DuckDB's errors become StrataErrors: what the
// statement got wrong is INVALID_ARGUMENT with DuckDB's message; a file DuckDB cannot read as Parquet is
// CORRUPT.
import { mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';
import { StrataError } from '../errors.js';
import { onFirstUse } from '../on-first-use.js';
import { literal } from './sql-text.js';
import { Stop, type StopOptions } from './stop.js';
import { randomHex } from '../random.js';

export interface EngineOptions {
  /** The directories holding the lake's files as DuckDB reads them: the data path of a directory store, the cache. */
  lakeDirs: readonly string[];
  /** The catalog's own scratch directory (statements' files, DuckDB's spill); emptied of the engine's leftovers before its first use. */
  scratchDir: string;
  /** DuckDB's memory_limit for each instance, in bytes: past it DuckDB spills to the scratch directory. */
  memoryLimit: number;
}

/** A source of DuckDB connections, each for one `fn` and closed after it. */
export interface Connections {
  withConnection<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T>;
}

/** What a host instance may read: every file the process can (true), or the files under these directories. */
export type HostReach = true | readonly string[];

/** Settings every instance starts with; DuckDB takes them before anything runs. */
const LOCKED_DOWN = {
  // DuckDB's external file cache keeps the blocks of every file it read until memory runs short: a process
  // that plans for hours over files committed all the time grew by it without end (the soak: ~40 MiB per
  // 1,000 statements). The files are local (a directory store's own, or the local copies of S3's), so the
  // OS page cache already holds them.
  enable_external_file_cache: 'false',
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  allow_community_extensions: 'false',
  allow_persistent_secrets: 'false',
};

/** Where an instance may reach: everything, or these directories and files (none: no file at all). */
export type Reach = 'everything' | { directories: readonly string[]; files: readonly string[] };

/** A directory as allowed_directories takes it: absolute, with the separator that makes it a prefix of its contents only. */
const asPrefix = (dir: string) => `${path.resolve(dir)}${path.sep}`;

/**
 * DuckDB's node API, loaded on first use: a process that never runs SQL never loads its native library. By
 * require, not import(): Node's ESM loader parses each of the package's 124 CommonJS modules for its exports
 * first, and the first statement of a process waited 94–112 ms for import() against ~60 for require.
 */
export const duckdb = onFirstUse<typeof import('@duckdb/node-api')>('@duckdb/node-api', (_api, bundled) => {
  if (!bundled) keepByteOrderMarks();
});

/**
 * The Node API decodes every text value with one `new TextDecoder()`, which drops a leading U+FEFF: a value
 * DuckDB holds as four characters came back as three. It reads the decoder from its module's exports at each
 * call, so the installed copy's is replaced by one that keeps the mark; the command's bundled copy is built
 * with it (src/cli/bundle.mjs).
 */
function keepByteOrderMarks(): void {
  const accessors = createRequire(import.meta.url)('@duckdb/node-api/lib/vectors/dataAccessors.js') as { textDecoder: { decode(bytes: Uint8Array): string } };
  accessors.textDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
}

/**
 * A new in-memory instance reaching `reach`, spilling to `spill` (null: never), configuration locked. The
 * allowed directories can only be given before external access is turned off, and nothing can be changed
 * once the configuration is locked: the order below is the only one that works.
 */
async function instance(reach: Reach, memoryLimit: number, spill: string | null): Promise<DuckDBInstance> {
  const db = await duckdb().DuckDBInstance.create(':memory:', { ...LOCKED_DOWN, memory_limit: `${memoryLimit} bytes`, temp_directory: spill ?? '' });
  try {
    const c = await db.connect();
    try {
      if (reach !== 'everything') {
        const list = (xs: readonly string[]) => `[${xs.map(literal).join(', ')}]`;
        if (reach.directories.length > 0) await c.run(`SET allowed_directories = ${list(reach.directories.map(asPrefix))}`);
        if (reach.files.length > 0) await c.run(`SET allowed_paths = ${list(reach.files.map((f) => path.resolve(f)))}`);
        await c.run('SET enable_external_access = false');
      }
      await c.run('SET lock_configuration = true');
    } finally {
      c.closeSync();
    }
  } catch (e) {
    db.closeSync();
    throw e;
  }
  return db;
}

/** In the scratch directory: each statement's directory is STATEMENT_DIR and 16 hex digits; DuckDB spills to SPILL. */
const STATEMENT_DIR = 's-';
const SPILL = 'spill';
const ENGINE_ENTRY = new RegExp(`^(${STATEMENT_DIR}[0-9a-f]{16}|${SPILL})$`);

/**
 * Removes what the engine put in `scratchDir` (only that: the directory is inside the caller's `dir`, and
 * nothing else in it is ours to delete), and the directory itself once empty.
 */
function clearScratch(scratchDir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(scratchDir);
  } catch {
    return;
  }
  for (const name of entries) {
    if (ENGINE_ENTRY.test(name)) rmSync(path.join(scratchDir, name), { recursive: true, force: true });
  }
  try {
    rmdirSync(scratchDir);
  } catch {
    // Not empty: something of somebody else's is there.
  }
}

/** How long close() waits for interrupted statements to end before it closes DuckDB under any left (an abandoned stream). */
const CLOSE_WAIT_MS = 2_000;

export class Engine {
  private executor: Promise<DuckDBInstance> | undefined;
  private plannerDb: Promise<DuckDBInstance> | undefined;
  /** The planner's connection `textFunction` runs on, and its statements, each prepared once. */
  private functions: { c: Promise<DuckDBConnection>; prepared: Map<string, Promise<DuckDBPreparedStatement>> } | undefined;
  /** The last `textFunction` call: each waits for the one before, since a call binds and runs a shared statement. */
  private turn: Promise<unknown> = Promise.resolve();
  /** The stops of the statements running, so that close() stops them. */
  private readonly running = new Set<Stop>();
  private scratchReady = false;
  private closed = false;

  constructor(private readonly opts: EngineOptions) {}

  /** A session for one statement, stopped as `stopOptions` say or by close(); end() it when the statement is done. */
  session(what: string, stopOptions: StopOptions | undefined): Session {
    this.assertOpen();
    const stop = new Stop(what, stopOptions);
    this.running.add(stop);
    void stop.settled().then(() => this.running.delete(stop));
    return new Session(this, stop);
  }

  /** A new connection to the executor; the caller closes it. */
  async connect(): Promise<DuckDBConnection> {
    this.assertOpen();
    return (await this.executorInstance()).connect();
  }

  /**
   * Connections to the executor outside any statement, each for one `fn`: the checks of registered files'
   * bytes (their positions, their field ids), which a statement or a registration asks for once per process.
   */
  readonly connections: Connections = {
    withConnection: async (fn) => {
      const c = await this.connect();
      try {
        return await fn(c);
      } finally {
        c.closeSync();
      }
    },
  };

  /** Connections to the planner, each for one `fn`: what the mirror is built and statements are planned on. */
  readonly planner: Connections = {
    withConnection: async (fn) => {
      this.assertOpen();
      const c = await (await this.plannerInstance()).connect();
      try {
        return await fn(c);
      } finally {
        c.closeSync();
      }
    },
  };

  /**
   * The one value of `sql` (a query of one text parameter that needs no connection state, such as
   * json_serialize_sql) on `arg`, on the planner. The statement is prepared once per catalog: DuckDB parsing,
   * binding and planning the query again on every call, and the round trips of a query with parameters, cost
   * more than running it (decision 0010).
   */
  textFunction(sql: string, arg: string): Promise<string> {
    const call = this.turn.then(async () => {
      this.assertOpen();
      const f = (this.functions ??= { c: this.plannerInstance().then((db) => db.connect()), prepared: new Map() });
      let p = f.prepared.get(sql);
      if (p === undefined) {
        f.prepared.set(sql, (p = f.c.then((c) => c.prepare(sql))));
        p.catch(() => f.prepared.delete(sql));
      }
      const statement = await p;
      statement.bindVarchar(1, arg);
      const result = await statement.run();
      return String(result.getChunk(0).getColumnVector(0).getItem(0));
    });
    this.turn = call.catch(() => undefined);
    return run(() => call);
  }

  /** Runs `fn` on a fresh instance of its own that reaches `reach` and spills to `spill`, for one statement, closed after it. */
  async withOwnInstance<T>(reach: Reach, spill: string, stop: Stop, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    this.assertOpen();
    const db = await instance(reach, this.opts.memoryLimit, spill);
    try {
      const c = await db.connect();
      const unwatch = stop.watch(c);
      try {
        return await fn(c);
      } finally {
        unwatch();
        c.closeSync();
      }
    } finally {
      db.closeSync();
    }
  }

  /** Where a statement's files go: a fresh directory under the scratch directory (made by the caller). */
  scratchPath(): string {
    this.prepareScratch();
    return path.join(this.opts.scratchDir, `${STATEMENT_DIR}${randomHex(8)}`);
  }

  /**
   * Stops every running statement (CANCELLED), waits for them to end (at most CLOSE_WAIT_MS: a stream its
   * reader abandoned never ends), then closes DuckDB: a query left running would keep a core busy and
   * hold the process at exit.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const closing = new StrataError('CANCELLED', 'the catalog was closed while the statement ran; nothing of it was committed');
    for (const stop of this.running) stop.stop(closing);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all([...this.running].map((s) => s.settled())), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
    await this.turn;
    const { functions, executor, plannerDb } = this;
    if (functions !== undefined) {
      for (const p of functions.prepared.values()) (await p.catch(() => undefined))?.destroySync();
      (await functions.c.catch(() => undefined))?.closeSync();
    }
    for (const db of [executor, plannerDb]) (await db?.catch(() => undefined))?.closeSync();
    clearScratch(this.opts.scratchDir);
  }

  private plannerInstance(): Promise<DuckDBInstance> {
    if (this.plannerDb === undefined) {
      this.plannerDb = instance({ directories: [], files: [] }, this.opts.memoryLimit, null);
      // A statement is parsed on the planner, then run on the executor: the two start at once (DuckDB opens
      // an instance off this thread), 16–22 ms for both against 24–32 one after the other. A failure to start
      // is connect()'s to throw.
      this.executorInstance().catch(() => undefined);
    }
    return this.plannerDb;
  }

  /** The executor, started on first use (its start's failure is the promise's). */
  private executorInstance(): Promise<DuckDBInstance> {
    return (this.executor ??= Promise.resolve().then(() => this.start()));
  }

  private start(): Promise<DuckDBInstance> {
    const { scratchDir, lakeDirs, memoryLimit } = this.opts;
    this.prepareScratch();
    return instance({ directories: [...lakeDirs, scratchDir], files: [] }, memoryLimit, path.join(scratchDir, SPILL));
  }

  /**
   * Empties the scratch directory before its first use in this process (what a crashed process left there is
   * nobody's), and makes DuckDB's spill directory.
   */
  private prepareScratch(): void {
    if (this.scratchReady) return;
    try {
      clearScratch(this.opts.scratchDir);
      mkdirSync(path.join(this.opts.scratchDir, SPILL), { recursive: true });
    } catch (e) {
      throw new StrataError('STORE_UNAVAILABLE', `the SQL engine cannot use its scratch directory ${this.opts.scratchDir} (${(e as Error).message}); the catalog's dir must be writable for SQL`, { cause: e });
    }
    this.scratchReady = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new StrataError('INVALID_ARGUMENT', 'this catalog is closed; open it again with Catalog.open');
  }
}

/**
 * One statement's use of the engine: connections that its stop interrupts, host instances for its host
 * reads, and a scratch directory of its own for the files it writes, removed by end().
 */
export class Session implements Connections {
  private dir: string | undefined;

  constructor(
    private readonly engine: Engine,
    readonly stop: Stop,
  ) {}

  /** A new executor connection, interrupted when the statement stops; the caller closes it. */
  async connect(): Promise<DuckDBConnection> {
    this.stop.check();
    const c = await this.engine.connect();
    this.stop.watch(c);
    return c;
  }

  /** Runs `fn` on a new executor connection, closed after it. */
  async withConnection<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    this.stop.check();
    const c = await this.engine.connect();
    const unwatch = this.stop.watch(c);
    try {
      return await fn(c);
    } finally {
      unwatch();
      c.closeSync();
    }
  }

  textFunction(sql: string, arg: string): Promise<string> {
    return this.engine.textFunction(sql, arg);
  }

  /** Runs `fn` on a host instance reaching `reach` and this statement's scratch directory. */
  withHost<T>(reach: HostReach, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const dir = this.scratch();
    return this.engine.withOwnInstance(reach === true ? 'everything' : { directories: [...reach, dir], files: [] }, path.join(dir, SPILL), this.stop, fn);
  }

  /** Runs `fn` on an instance that reads `file` alone (a load's source) and writes to this statement's scratch directory. */
  withFile<T>(file: string, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const dir = this.scratch();
    return this.engine.withOwnInstance({ directories: [dir], files: [file] }, path.join(dir, SPILL), this.stop, fn);
  }

  /** A path in the statement's scratch directory: `name` and a random part, so that no two uses meet. */
  path(name: string): string {
    return path.join(this.scratch(), `${name}-${randomHex(6)}`);
  }

  /** The statement is done: its scratch directory goes, and its stop with it. */
  async end(): Promise<void> {
    this.stop.dispose();
    if (this.dir !== undefined) await rm(this.dir, { recursive: true, force: true });
  }

  private scratch(): string {
    if (this.dir === undefined) {
      this.dir = this.engine.scratchPath();
      mkdirSync(this.dir, { recursive: true });
    }
    return this.dir;
  }
}

/** Runs DuckDB work, its errors as StrataErrors. */
export async function run<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw duckError(e);
  }
}

/** How often a running statement's progress is read. */
const PROGRESS_MS = 200;

/** Runs `work` on `c`, telling `onProgress` DuckDB's estimate of how far it is (0–100) while it runs. */
export async function withProgress<T>(c: DuckDBConnection, onProgress: ((percent: number) => void) | undefined, work: () => Promise<T>): Promise<T> {
  if (onProgress === undefined) return run(work);
  const timer = setInterval(() => {
    const p = c.progress.percentage;
    if (p >= 0) onProgress(Math.min(100, p));
  }, PROGRESS_MS);
  try {
    const out = await run(work);
    onProgress(100);
    return out;
  } finally {
    clearInterval(timer);
  }
}

/**
 * DuckDB's own pointer into the text it ran ("LINE 1: …" and a caret): the text it ran is the catalog's
 * rewrite of a statement (its tables as scans of local files), never what the caller wrote, so it goes
 * (statement-errors.ts points into the caller's own text).
 */
const DUCK_POINTER = /\n*LINE \d+:[^\n]*\n[ \t]*\^[\s\S]*$/;

/**
 * What DuckDB says when a Parquet file's bytes are not Parquet: a footer or page that does not decode (its
 * Thrift metadata, its length, its magic bytes, offsets past the end of the file, a schema that cannot be), each
 * with the file's name where DuckDB gives it. A file the catalog names and its recorded size passed is
 * damaged: CORRUPT, never the caller's mistake (INVALID_ARGUMENT) or an unreachable store.
 */
const DAMAGE: RegExp[] = [
  /Failed to read (?:Parquet )?file "([^"]+)"/,
  /in Parquet file "([^"]+)"/,
  /(?:Footer length error|No magic bytes found at end of|too small to be a Parquet file).*?file '([^']+)'/i,
  /Could not read enough bytes from file "([^"]+)"/,
  /Could not read from file "([^"]+)": Invalid argument/,
  /Prefetch registered for bytes outside file: ([^,]+),/,
  /()TProtocolException|()don't know what type|()invalid TType|()Invalid unicode \(byte sequence mismatch\) detected in value construction/,
  /()magic bytes|()not a parquet file|()corrupt|^Invalid Error: Out of buffer()/i,
];

export function duckError(e: unknown): unknown {
  if (e instanceof StrataError || !(e instanceof Error)) return e;
  const m = e.message.replace(DUCK_POINTER, '');
  const missing = /No files found that match the pattern "([^"]+)"/.exec(m);
  if (missing) {
    return new StrataError('CORRUPT', `${missing[1]}, a file the catalog names, is missing from the store; strata verify --files lists what else is`, { cause: e });
  }
  for (const pattern of DAMAGE) {
    const damaged = pattern.exec(m);
    if (damaged === null) continue;
    const file = damaged.slice(1).find((f) => f !== undefined && f !== '');
    return new StrataError(
      'CORRUPT',
      `${file ?? 'a data or delete file'} cannot be decoded as Parquet (DuckDB: ${m}); strata verify --files checks every file's size and recorded CRC-32`,
      { cause: e },
    );
  }
  // DuckDB's Parquet writer says it as an IO Error, but it is the value, not the disk.
  if (/Parquet files do not support negative intervals/.test(m)) {
    return new StrataError('INVALID_ARGUMENT', `a negative INTERVAL cannot be stored: Parquet's INTERVAL has no sign (DuckDB: ${m}); store it as BIGINT microseconds, or as text`, { cause: e });
  }
  const refused = /^Permission Error: Cannot access (?:file|directory) "([^"]*)"/.exec(m);
  if (refused) {
    return new StrataError('INVALID_ARGUMENT', `the statement reaches ${refused[1]}, outside the lake: sql() reads the catalog's tables by name, and host files only when the caller opts in (sql(q, { hostFiles: true }) or Catalog.open({ sql: { hostFiles } }))`, { cause: e });
  }
  if (/^IO Error/i.test(m)) return new StrataError('STORE_UNAVAILABLE', `DuckDB could not read a file: ${m}`, { cause: e });
  // DuckDB's own advice (SET memory_limit) is refused on the catalog's locked instance; the limit is the catalog's.
  if (/^Out of Memory Error/.test(m)) {
    const limit = /\/([\d.]+ [KMGT]?i?B) used\)/.exec(m)?.[1];
    return new StrataError(
      'OUT_OF_MEMORY',
      `the statement needed more memory than DuckDB's limit${limit === undefined ? '' : ` of ${limit}`} and was stopped; nothing of it was committed. ` +
        `Open the catalog with a larger one (Catalog.open({ dir, sql: { memoryLimit } }), in bytes), or run the statement over fewer rows (DuckDB: ${m.split('\n')[0]})`,
      { cause: e },
    );
  }
  return new StrataError('INVALID_ARGUMENT', m, { cause: e });
}
