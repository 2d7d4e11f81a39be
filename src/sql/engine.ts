// DuckDB, the data plane: one in-memory instance per catalog, opened on first use, a connection per
// statement (its USE of a scratch database is its own) and one for the parser's functions. DuckDB's errors become StrataErrors: what the
// statement got wrong is INVALID_ARGUMENT with DuckDB's message; a file DuckDB cannot read as Parquet is CORRUPT.
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';
import { StrataError } from '../errors.js';

export class Engine {
  private instance: Promise<DuckDBInstance> | undefined;
  /** The connection `textFunction` runs on, and its statements, each prepared once. */
  private functions: { c: Promise<DuckDBConnection>; prepared: Map<string, Promise<DuckDBPreparedStatement>> } | undefined;
  /** The last `textFunction` call: each waits for the one before, since a call binds and runs a shared statement. */
  private turn: Promise<unknown> = Promise.resolve();

  /** A new connection; the caller closes it. */
  async connect(): Promise<DuckDBConnection> {
    // Loaded on first use: a process that never runs SQL never loads DuckDB's native library.
    // DuckDB's external file cache keeps the blocks of every file it read until memory runs short (its limit
    // is 80% of RAM): a process that plans for hours over files committed all the time grew by it without
    // end (the soak: ~40 MiB per 1,000 statements). The files are local (a directory store's own, or the
    // local copies of S3's), so the OS page cache already holds them.
    this.instance ??= import('@duckdb/node-api').then((duck) => duck.DuckDBInstance.create(':memory:', { enable_external_file_cache: 'false' }));
    return (await this.instance).connect();
  }

  /** Runs `fn` on a new connection, closed after it. */
  async withConnection<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const c = await this.connect();
    try {
      return await fn(c);
    } finally {
      c.closeSync();
    }
  }

  /**
   * The one value of `sql` (a query of one text parameter that needs no connection state, such as
   * json_serialize_sql) on `arg`. The statement is prepared once per catalog: DuckDB parsing, binding and
   * planning the query again on every call, and the round trips of a query with parameters, cost more than
   * running it (decision 0025).
   */
  textFunction(sql: string, arg: string): Promise<string> {
    const call = this.turn.then(async () => {
      const f = (this.functions ??= { c: this.connect(), prepared: new Map() });
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

  async close(): Promise<void> {
    await this.turn;
    const { functions, instance } = this;
    this.functions = undefined;
    this.instance = undefined;
    if (functions !== undefined) {
      for (const p of functions.prepared.values()) (await p.catch(() => undefined))?.destroySync();
      (await functions.c.catch(() => undefined))?.closeSync();
    }
    (await instance?.catch(() => undefined))?.closeSync();
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
  const m = e.message;
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
  if (/^IO Error/i.test(m)) return new StrataError('STORE_UNAVAILABLE', `DuckDB could not read a file: ${m}`, { cause: e });
  return new StrataError('INVALID_ARGUMENT', m, { cause: e });
}
