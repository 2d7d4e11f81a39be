// How a catalog's SQL plane runs, as Catalog.open({ sql }) gives it: checked when the catalog opens, before
// anything is, and apart from the plane itself, which a read-only catalog loads only when a statement needs it.
import * as path from 'node:path';
import { options, positiveCount } from '../arguments.js';
import { StrataError } from '../errors.js';
import type { HostReach } from './engine.js';

/** Whether a statement reads host files, and which: off, every file the process can read, or those under directories. */
export type HostFiles = false | HostReach;

const MiB = 2 ** 20;

/** How the catalog's DuckDB runs: Catalog.open({ sql }). */
export interface SqlEngineOptions {
  /**
   * DuckDB's memory limit, in bytes, for each of its instances (default 192 MiB): past it DuckDB spills to
   * `<dir>/sql-scratch`. DuckDB's process grows past its limit by its own buffers (Parquet writers, file
   * metadata) and the catalog's (a written file is read whole to be stored): compacting a 4M-row table of
   * 81 MiB of Parquet into one file peaked at 462–477 MiB of RSS at the default, an UPDATE of a quarter of
   * its rows at 415–440 MiB (bench/sql/memory-child.ts, decision 0031). A query that reads many files at
   * once needs more than a small limit: tableChanges over 23 snapshots of a 21-file table ran out of memory
   * below ~192 MiB.
   */
  memoryLimit?: number;
  /**
   * Whether statements read host files (read_csv('orders.csv'), …) unless a call says otherwise: true for
   * any file the process can read, a list for the files under those directories; default false.
   */
  hostFiles?: boolean | string[];
  /**
   * Where COPY … TO may write host files unless a call says otherwise: true for anywhere the process may, a
   * list for under those directories; default false (COPY … TO refused). Apart from hostFiles, which reads.
   */
  hostWrites?: boolean | string[];
}

/** The checked settings of Catalog.open's `sql` option. */
export interface SqlSettings {
  memoryLimit: number;
  hostFiles: HostFiles;
  hostWrites: HostFiles;
}

export const DEFAULT_MEMORY_LIMIT = 192 * MiB;

/** Catalog.open's `sql` option, checked (before anything is opened). */
export function sqlSettings(given: SqlEngineOptions | undefined): SqlSettings {
  const { memoryLimit, hostFiles, hostWrites } = options('Catalog.open() sql', given, ['memoryLimit', 'hostFiles', 'hostWrites']);
  const limit = positiveCount('sql.memoryLimit', memoryLimit, DEFAULT_MEMORY_LIMIT);
  return { memoryLimit: limit, hostFiles: checkHostFiles('sql.hostFiles', hostFiles) ?? false, hostWrites: checkHostFiles('sql.hostWrites', hostWrites) ?? false };
}

/** `hostFiles` or `hostWrites` as a caller gives it, checked: false, true, or a list of directories (made absolute). */
export function checkHostFiles(what: string, v: unknown): HostFiles | undefined {
  if (v === undefined || v === false || v === true) return v;
  if (Array.isArray(v) && v.length > 0 && v.every((d) => typeof d === 'string' && d !== '' && !d.includes('\u0000'))) return v.map((d: string) => path.resolve(d));
  const any = what.endsWith('hostWrites') ? 'anywhere the process may write' : 'any file the process can read';
  throw new StrataError('INVALID_ARGUMENT', `${what} is true (${any}), false, or a non-empty list of directories; got ${JSON.stringify(v)}`);
}
