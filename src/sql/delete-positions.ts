// What makes a positional delete file one the catalog may apply and build on: each position it holds names a
// row of its data file (0 ≤ pos < the file's record count), no position twice, and as many positions as the
// catalog records (deleteCount). A file that breaks this is not a different set of deletes but a wrong one:
// a position past the end deletes nothing while it counts, a repeated one counts twice, and "every row is
// deleted" — which ends the data file — would be believed of a file that still has live rows.
//
// It is checked where a delete file is registered (addDeleteFile, where it lies on this machine), before a
// statement applies or builds on one (once per process and record, like the first-read check of its bytes),
// and by verify({ files }). Many files are read in one query: a first listing may name thousands.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { NamedDeleteFile } from '../../keys/census.js';
import type { Violation } from '../../keys/violation.js';
import { StrataError } from '../errors.js';
import { type Connections, run } from './engine.js';
import type { KeptFile, KeptPositions } from './kept-positions.js';
import { identityOf, type LocalFiles, recordedFile } from './local-files.js';
import { literal } from './sql-text.js';
import { StatementFiles } from './statement-files.js';
import { randomHex } from '../random.js';

/**
 * The column that says which delete file a row came from: a name no file has (random per process). DuckDB's own
 * `filename` and `file_index` are hidden by a column of that name in the file, and a delete file with one had
 * its positions read as another file's.
 */
export const DELETE_FILE = `__strata_${randomHex(6)}_delete_file`;

/** The rows of delete files (their local paths), each with its file's path as DELETE_FILE; columns matched by name. */
export function deleteRowsOf(locals: readonly string[]): string {
  const byName = locals.length > 1 ? ', union_by_name = true' : '';
  return `read_parquet([${locals.map(literal).join(', ')}], filename = '${DELETE_FILE}'${byName})`;
}

/** A position that is a whole number, as a BIGINT; a fraction fails the statement (a file holding one is never applied rounded). */
export const wholePosition = (pos: string) =>
  `CASE WHEN ${pos} IS NULL OR ${pos}::DOUBLE = trunc(${pos}::DOUBLE) THEN ${pos}::BIGINT ELSE error('a delete position that is not a whole number') END`;

/** A delete file to check: where DuckDB reads it, and what it must hold. */
export interface DeletePositions {
  /** A local path. */
  local: string;
  /** Rows of the data file it deletes from. */
  recordCount: number;
  /** Positions the catalog records (or a caller registers) it holds. */
  deleteCount: number;
}

interface Read {
  rows: number;
  distinct: number;
  /** Rows whose position is NULL or missing. */
  missing: number;
  /** Positions that are not whole numbers (a pos column of a floating type). */
  fractional: number;
  min: number | null;
  max: number | null;
}

/** What is wrong with positions `p` for `want`, in words, or undefined. */
function mismatch(p: Read, want: DeletePositions): string | undefined {
  if (p.missing > 0) return `${p.missing} of its rows have no position (a delete file has file_path and pos)`;
  if (p.fractional > 0) return `${p.fractional} of its positions are not a whole number (pos is a row's number in its data file: an integer column)`;
  if (p.min !== null && p.min < 0) return `it holds position ${p.min}, and positions start at 0`;
  if (p.max !== null && p.max >= want.recordCount) return `it holds position ${p.max}, past the ${want.recordCount} rows of its data file (positions 0 to ${want.recordCount - 1})`;
  if (p.distinct !== p.rows) return `it holds ${p.rows - p.distinct} positions more than once (${p.rows} rows, ${p.distinct} distinct positions)`;
  if (p.rows !== want.deleteCount) return `it holds ${p.rows} positions, and its deleteCount says ${want.deleteCount}`;
  return undefined;
}

export class DeletePositionChecks {
  /** By file and what it must hold: the problem found (undefined: none), once per process. */
  private readonly done = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly engine: Connections,
    /** Where positions a statement applies are kept once read (kept-positions.ts). */
    readonly kept: KeptPositions,
  ) {}

  /** A delete file this process wrote of rows it read of its data file, each once: it checks out, unread. */
  wrote(identity: string, recordCount: number, deleteCount: number): void {
    this.done.set(key({ identity, recordCount, deleteCount }), Promise.resolve(undefined));
  }

  /**
   * The problem of each file, in order (undefined: it checks out). `identity` names what a file's bytes are
   * (its key, size and CRC): a file read before under the same identity and needs is not read again. With
   * `keep`, the files read are read into `kept`, which the statement about to apply them then finds there.
   */
  async problems(files: readonly (DeletePositions & { identity: string })[], keep = false): Promise<(string | undefined)[]> {
    const fresh = files.filter((f) => !this.done.has(key(f)));
    if (fresh.length > 0) {
      const reading = keep ? this.readKept(fresh) : this.read(fresh);
      reading.catch(() => undefined);
      fresh.forEach((f, i) => {
        const p = reading.then((found) => found[i]);
        this.done.set(key(f), p);
        p.catch(() => this.done.delete(key(f)));
      });
    }
    return Promise.all(files.map((f) => this.done.get(key(f))!));
  }

  /**
   * Throws CORRUPT naming the first file whose positions do not fit: a committed delete file the store did
   * not hold when it was registered, or that changed since, is not applied or built on. `keep`: as problems().
   */
  async trusted(files: readonly (DeletePositions & { identity: string; named: string; dataFileId: number })[], keep: boolean): Promise<void> {
    const found = await this.problems(files, keep);
    const bad = found.findIndex((p) => p !== undefined);
    if (bad < 0) return;
    const f = files[bad]!;
    throw new StrataError(
      'CORRUPT',
      `${f.named}, the delete file of data file ${f.dataFileId} (${f.recordCount} rows), is not one the catalog can apply: ${found[bad]}. ` +
        'Nothing was read from it; restore the table to a snapshot before it was registered (restoreTable), or remove its data file',
    );
  }

  /**
   * Reads the files into `kept` and checks them there: one read of each file for the check and for the
   * statements after it. A file that does not fit, or that the load could not read, is read as `read` does;
   * one whose positions do not fit its data file is forgotten again.
   */
  private readKept(files: readonly (DeletePositions & KeptFile)[]): Promise<(string | undefined)[]> {
    return this.engine.withConnection(async (c) => {
      const holding = await this.kept.hold(files, c);
      try {
        const inKept = files.filter((f) => holding.slots.has(f.identity));
        const found = inKept.length === 0 ? new Map<number, Read>() : await keptPositionsOf(c, this.kept.table, inKept.map((f) => holding.slots.get(f.identity)!));
        const rest = files.filter((f) => !holding.slots.has(f.identity));
        const read = new Map(rest.length === 0 ? [] : (await this.read(rest)).map((p, i) => [rest[i]!, p] as const));
        const problems = files.map((f) => (read.has(f) ? read.get(f) : mismatch(found.get(holding.slots.get(f.identity)!) ?? EMPTY, f)));
        files.forEach((f, i) => problems[i] !== undefined && this.kept.forget(f.identity));
        return problems;
      } finally {
        holding.release();
      }
    });
  }

  /** Reads the files' positions, all in one query; one that fails (a file that is not a delete file) is read alone. */
  private read(files: readonly DeletePositions[]): Promise<(string | undefined)[]> {
    return this.engine.withConnection(async (c) => {
      try {
        const found = await positionsOf(c, files.map((f) => f.local));
        return files.map((f) => mismatch(found.get(f.local) ?? EMPTY, f));
      } catch (e) {
        if (files.length === 1) return [`DuckDB cannot read its positions: ${(e as Error).message.split('\n')[0]}`];
        return (await Promise.all(files.map((f) => this.read([f])))).flat();
      }
    });
  }
}

/** What a file was checked as: its bytes' identity and what it must hold. */
const key = (f: Pick<DeletePositions, 'recordCount' | 'deleteCount'> & { identity: string }) => `${f.identity}/${f.recordCount}/${f.deleteCount}`;

const EMPTY: Read = { rows: 0, distinct: 0, missing: 0, fractional: 0, min: null, max: null };

/**
 * Each file's counts of positions; a file with no rows has none. Files written by different engines may order
 * or name their other columns differently, so several are read by name; one alone is read as it is (the same
 * columns, without union_by_name's second pass over its schema: what a statement's first read of one file waits for).
 */
async function positionsOf(c: DuckDBConnection, locals: readonly string[]): Promise<Map<string, Read>> {
  const rows = await countsOf(c, `SELECT ${DELETE_FILE} AS f, pos FROM ${deleteRowsOf(locals)}`);
  return new Map(rows.map((r) => [String(r.f), r.read]));
}

/** The counts of the positions `source` gives (columns f and pos), by f. */
async function countsOf(c: DuckDBConnection, source: string): Promise<{ f: unknown; read: Read }[]> {
  const rows = (
    await run(() =>
      c.runAndReadAll(
        `SELECT f, count(*) AS n, count(DISTINCT pos) AS d, count(*) - count(pos) AS m, count(*) FILTER (WHERE pos::DOUBLE <> trunc(pos::DOUBLE)) AS fr, ` +
          'min(pos)::HUGEINT::VARCHAR AS lo, max(pos)::HUGEINT::VARCHAR AS hi ' +
          `FROM (${source}) GROUP BY f`,
      ),
    )
  ).getRowObjectsJS() as { f: unknown; n: bigint; d: bigint; m: bigint; fr: bigint; lo: string | null; hi: string | null }[];
  const num = (x: string | null) => (x === null ? null : Number(x));
  return rows.map((r) => ({ f: r.f, read: { rows: Number(r.n), distinct: Number(r.d), missing: Number(r.m), fractional: Number(r.fr), min: num(r.lo), max: num(r.hi) } }));
}

/** The counts of the positions kept in `table` under each of `slots`; a slot with no rows has none. */
async function keptPositionsOf(c: DuckDBConnection, table: string, slots: readonly number[]): Promise<Map<number, Read>> {
  const rows = await countsOf(c, `SELECT slot AS f, pos FROM ${table} WHERE slot IN (${slots.join(', ')})`);
  return new Map(rows.map((r) => [Number(r.f), r.read]));
}

/** Delete files verify reads positions of in one query, held locally meanwhile. */
const VERIFY_BATCH = 512;

/**
 * verify({ files }): every delete file whose positions do not fit its data file, as violations. A file the
 * store lacks, or whose bytes are not the recorded ones, is left to the check of bytes, which reports it.
 */
export async function deletePositionViolations(ctx: { dataPath: string; files: LocalFiles; positions: DeletePositionChecks }, named: readonly NamedDeleteFile[]): Promise<Violation[]> {
  const out: Violation[] = [];
  for (let i = 0; i < named.length; i += VERIFY_BATCH) {
    const held = new StatementFiles(ctx.files);
    try {
      const ready: (NamedDeleteFile & DeletePositions & { identity: string; key: string })[] = [];
      for (const f of named.slice(i, i + VERIFY_BATCH)) {
        const recorded = recordedFile(ctx.dataPath, f);
        const local = await held.hold([recorded]).then(([l]) => l, () => undefined);
        if (local !== undefined) ready.push({ ...f, local, identity: identityOf(recorded), key: recorded.key });
      }
      const found = await ctx.positions.problems(ready);
      found.forEach((problem, j) => {
        const f = ready[j]!;
        if (problem !== undefined) out.push({ invariant: 'delete-files-fit-their-data', object: f.key, message: `the delete file of data file ${f.dataFileId} (${f.recordCount} rows): ${problem}` });
      });
    } finally {
      held.release();
    }
  }
  return out;
}
