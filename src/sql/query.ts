// A SELECT over the catalog: each table reference bound to its files at its snapshot (its own AT clause,
// else the statement's `at`, else the newest snapshot, resolved once for the whole statement), read through
// a subquery put where the reference was, and the statement run by DuckDB.
import { DuckDBTimestampTZValue, type DuckDBValue } from '@duckdb/node-api';
import type { FileId, SnapshotId } from '../../keys/ids.js';
import type { NameMappingColumn } from '../../keys/name-mappings.js';
import { options } from '../arguments.js';
import { isStrataError, StrataError } from '../errors.js';
import type { ReadState, SnapshotReads, StateReads } from '../read/read-state.js';
import type { DataFileInfo, DeleteFileInfo, ViewInfo } from '../read/records.js';
import type { SnapshotSelector } from '../read/resolve-snapshot.js';
import { checkCommitMeta } from '../txn/plan.js';
import type { TransactionFn } from '../txn/prepared.js';
import type { ObjectStore } from '../store/object-store.js';
import type { DeletePositionChecks } from './delete-positions.js';
import type { FieldIdChecks, FileLayout } from './file-columns.js';
import { catalogRelationScan, type RelationReads } from './catalog-relations.js';
import { run, type Session, withProgress } from './engine.js';
import { columnsOf, type LoadedRows, loadedScan, loadHostRows } from './host-files.js';
import type { HostFiles } from './settings.js';
import { identityOf, type LocalFiles, recordedFile } from './local-files.js';
import { StatementFiles } from './statement-files.js';
import type { Mirror } from './mirror.js';
import { type BoundParams, boundParams, keptParams, paramValue, type SqlParams } from './params.js';
import { rowsOf, streamRows } from './values.js';
import { skippable, testsOf } from './pruning.js';
import { type AtClause, inline, type ParameterBound, prepare, prepareDefinition, protectBig, type ScalarSql, type TableCall, type TableRef, type TimeExpression } from './statement.js';
import { pointedError } from './statement-errors.js';
import type { StopOptions } from './stop.js';
import { isHostReader, refusedTableFunction } from './table-functions.js';
import { definitionOf } from './view-definition.js';
import { tableScan } from './table-scan.js';
import { ident, literal } from './sql-text.js';
import { randomHex } from '../random.js';
import { parseInstant, parseSnapshotId } from '../snapshot-names.js';

export interface SqlOptions extends StopOptions {
  /** The snapshot of every table reference without an AT clause of its own (default: the newest). */
  at?: SnapshotSelector;
  /** Told DuckDB's estimate of how far the statement is (0–100) while it runs, a few times a second. */
  onProgress?: (percent: number) => void;
  /**
   * Whether the statement may read host files through DuckDB's file readers (read_csv('orders.csv'), …):
   * true for any file the process can read, a list for the files under those directories, false for none
   * (default: what Catalog.open's sql.hostFiles says, else false). Their rows are loaded first (decision 0030).
   */
  hostFiles?: boolean | string[];
  /**
   * Where COPY … TO may write its file: true for anywhere the process may, a list for under those directories,
   * false for nowhere (default: what Catalog.open's sql.hostWrites says, else false).
   */
  hostWrites?: boolean | string[];
  /** The author and message of the commit a statement that writes makes (its message defaults to the statement). */
  author?: string;
  message?: string;
  /**
   * Values of the statement's parameters, bound by DuckDB (never made text of the statement): an array for
   * `$1`, `$2`, … or `?`, a plain object for `$name`. SELECT, INSERT, UPDATE, DELETE, MERGE and CREATE TABLE … AS take them.
   */
  params?: SqlParams;
}

/**
 * What a statement answered. `Row` is what the caller says its rows are (`sql<{ id: bigint }>(…)`): the
 * library does not check it; each value is what values.ts gives for its DuckDB type.
 */
export interface SqlResult<Row extends Record<string, unknown> = Record<string, unknown>> {
  /** Objects keyed by column name, each value exact (values.ts, decision 0036). */
  rows: Row[];
  columns: { name: string; type: string }[];
  /** The newest snapshot the statement read (null: it read no catalog table). */
  snapshot: SnapshotId | null;
  /** Data files the statement's table references named, and how many of them their statistics let it skip. */
  files: FileCounts;
}

/** One table a statement scanned, at one snapshot: its data files listed there, and how many it skipped. */
export interface TableFiles {
  schema: string;
  table: string;
  snapshot: SnapshotId;
  listed: number;
  skipped: number;
}

/** Data files listed and skipped, in all and per table scanned (a table read twice at one snapshot is scanned once). */
export interface FileCounts {
  listed: number;
  skipped: number;
  tables: TableFiles[];
}

/** No file listed yet. */
export const noFiles = (): FileCounts => ({ listed: 0, skipped: 0, tables: [] });

/** What the SQL layer needs of a catalog: readers, transactions, its store and data path, DuckDB, the local files. */
export interface PlaneContext {
  /** Where the states a statement reads are opened: the commit layer's, or inside a transaction its own (see pending). */
  reads: StateReads;
  /** The committed catalog, also inside a transaction: its history, which snapshots() reads (catalog-relations.ts). */
  committed: SnapshotReads;
  transaction(fn: TransactionFn, meta?: { author?: string; message?: string; basedOn?: number; maintenance?: boolean }): Promise<{ snapshot: SnapshotId | null }>;
  /** Throws READ_ONLY unless this catalog may write: checked before a write puts anything in the store. */
  writable(): void;
  /**
   * Set when statements run inside a transaction (tx.sql): reads.reader() without a selector is then the
   * transaction's pending state, which a reference without AT reads, and transaction() adds to it.
   */
  pending?: boolean;
  store: ObjectStore;
  dataPath: string;
  /** DuckDB, as the statement's session: stopped with it, its files in a scratch directory of its own. */
  engine: Session;
  files: LocalFiles;
  /** Delete files' positions, checked once per process before a statement applies or builds on them. */
  positions: DeletePositionChecks;
  /** Whether data files read by field id carry them, checked once per process (those registered unseen). */
  fieldIds: FieldIdChecks;
  mirror: Mirror;
  /** Whether the statement reads host files, and which. */
  hostFiles: HostFiles;
  /** Where a COPY … TO may write. */
  hostWrites: HostFiles;
  /** The SELECT of what a write reads in place of what it wrote — host rows loaded, a table AT a snapshot — by the name its text reads it under (write.ts). */
  loaded?: ReadonlyMap<string, string>;
  /** Database files a write's loaded rows are in, by the name its scratch database attaches them under. */
  attached?: ReadonlyMap<string, string>;
  /** The values a write binds to its statement's parameters where it runs it (write.ts). */
  params?: BoundParams;
}

/** An EXPLAIN [ANALYZE] of a SELECT: whether it analyzes (runs the SELECT), and the SELECT's text. */
export interface Explain {
  analyze: boolean;
  select: string;
}

/** The EXPLAIN a statement opens with, if it does (undefined: it is no EXPLAIN). */
export function explainOf(text: string): Explain | undefined {
  const m = /^\s*EXPLAIN(\s+ANALYZE)?\s+/i.exec(text);
  return m === null ? undefined : { analyze: m[1] !== undefined, select: text.slice(m[0].length) };
}

/**
 * A SELECT's rows; with `explain`, DuckDB's plan of it as rewritten (each table a scan of the files it reads at
 * its snapshot; `files` says how many were listed and skipped), and with ANALYZE its profile, the SELECT run.
 */
export async function select(ctx: PlaneContext, text: string, given: SqlOptions | undefined, explain?: Explain): Promise<SqlResult> {
  return ctx.engine.withConnection(async (c) => {
    const held = new StatementFiles(ctx.files, true);
    try {
      const { sql, meta, params } = await bind(ctx, text, given, held);
      const run = explain === undefined ? sql : `EXPLAIN ${explain.analyze ? 'ANALYZE ' : ''}${sql}`;
      const result = await answerOnceChecked(
        held,
        withProgress(c, given?.onProgress, () => c.runAndReadAll(run, params)).catch((e: unknown) => pointed(ctx, e, text)),
      );
      return { ...(await rowsOf(result)), ...meta };
    } finally {
      held.release();
    }
  });
}

/**
 * A SELECT's rows into a DuckDB database file `file`, as its table main.rows, every type as it is: what COPY …
 * TO copies to a host file (copy.ts), and what a write reads first (write.ts). Returns what a SELECT's result
 * says of its snapshot and files, how many rows there were, and their columns.
 */
export async function selectInto(ctx: PlaneContext, text: string, given: SqlOptions | undefined, file: string): Promise<{ meta: Pick<SqlResult, 'snapshot' | 'files'>; count: number; columns: LoadedRows['columns'] }> {
  return ctx.engine.withConnection(async (c) => {
    const held = new StatementFiles(ctx.files, true);
    const into = ident(`into_${randomHex(6)}`);
    try {
      const { sql, meta, params } = await bind(ctx, text, given, held);
      await run(() => c.run(`ATTACH ${literal(file)} AS ${into}`));
      try {
        const result = await answerOnceChecked(
          held,
          withProgress(c, given?.onProgress, () => c.runAndReadAll(`CREATE TABLE ${into}.main.rows AS ${sql}`, params)).catch((e: unknown) => pointed(ctx, e, text)),
        );
        return { meta, count: Number(result.getRows()[0]![0]), columns: await columnsOf(c, `SELECT * FROM ${into}.main.rows`) };
      } finally {
        await c.run(`DETACH ${into}`).catch(() => undefined);
      }
    } finally {
      held.release();
    }
  });
}

/**
 * What `running` gives, once the statement's checks that ran beside it passed: a check's failure (a file's
 * CORRUPT) is thrown before the statement's own, as when it ran first.
 */
async function answerOnceChecked<T>(held: StatementFiles, running: Promise<T>): Promise<T> {
  const [ran, checked] = await Promise.allSettled([running, held.checked()]);
  if (checked.status === 'rejected') throw checked.reason;
  if (ran.status === 'rejected') throw ran.reason;
  return ran.value;
}

/** A failure of DuckDB's running the rewrite of `text`, said about `text` (statement-errors.ts). */
async function pointed(ctx: PlaneContext, e: unknown, text: string): Promise<never> {
  if (!isStrataError(e, 'INVALID_ARGUMENT')) throw e;
  throw await pointedError(e, text, async (t) => JSON.parse(protectBig(await ctx.engine.textFunction('SELECT json_serialize_sql($1::VARCHAR) AS v', t))));
}

/**
 * The same result in the batches DuckDB produces it in (2,048 rows): memory stays bounded however large
 * the result. The statement's files stay held until the last batch, or until the caller stops early.
 */
export async function* selectBatches(ctx: PlaneContext, text: string, given: SqlOptions | undefined): AsyncGenerator<SqlResult> {
  const c = await ctx.engine.connect();
  const held = new StatementFiles(ctx.files, true);
  try {
    const { sql, meta, params } = await bind(ctx, text, given, held);
    const { columns, batches } = await answerOnceChecked(
      held,
      streamRows(c, sql, params).catch((e: unknown) => pointed(ctx, e, text)),
    );
    for await (const rows of batches) yield { rows, columns, ...meta };
  } finally {
    held.release();
    c.closeSync();
  }
}

/** sql()'s options, checked: the same for a statement that reads and one that writes. */
export function sqlOptions(given: SqlOptions | undefined): SqlOptions {
  const checked = options('sql()', given, ['at', 'onProgress', 'timeoutMs', 'signal', 'hostFiles', 'hostWrites', 'author', 'message', 'params']);
  if (checked.onProgress !== undefined && typeof checked.onProgress !== 'function') throw new StrataError('INVALID_ARGUMENT', 'sql() onProgress must be a function (percent) => void');
  if (checked.at !== undefined) options('sql() at', checked.at, ['snapshot', 'timestamp', 'tag']);
  authorship(checked);
  // timeoutMs and signal are checked by the statement's Stop, hostFiles and hostWrites by its context (data-plane.ts).
  return checked;
}

/** The author and message a caller gave a statement or a load, checked before anything is written. */
export function authorship(given: { author?: string | undefined; message?: string | undefined }): { author?: string; message?: string } {
  const meta = { ...(given.author === undefined ? {} : { author: given.author }), ...(given.message === undefined ? {} : { message: given.message }) };
  checkCommitMeta(meta);
  return meta;
}

/** `ctx` committing with `meta` (a caller's author and message) in the one transaction a statement or load makes. */
export function committing(ctx: PlaneContext, meta: { author?: string; message?: string }): PlaneContext {
  if (meta.author === undefined && meta.message === undefined) return ctx;
  return { ...ctx, transaction: (fn, own) => ctx.transaction(fn, { ...own, ...meta }) };
}

/** Parses the statement and binds its references: the text DuckDB runs, and what it read. */
async function bind(ctx: PlaneContext, text: string, given: SqlOptions | undefined, held: StatementFiles) {
  const { at, author, message, params } = sqlOptions(given);
  const bound = boundParams(params);
  if (author !== undefined || message !== undefined) {
    throw new StrataError('INVALID_ARGUMENT', 'author and message name the commit of a statement that writes; this statement is a SELECT, which commits nothing');
  }
  const statement = await prepare(text, PLACEHOLDER, (sql, arg) => ctx.engine.textFunction(sql, arg));
  if (statement.kind !== 'select') throw new StrataError('INVALID_ARGUMENT', 'a statement other than SELECT reached the read path');
  // One snapshot for every reference without AT and every catalog relation, resolved once: the statement reads
  // one state. Inside a transaction, they read the transaction's own (no selector).
  // One binder for the statement: every time expression in it (ATs, change feeds' bounds) evaluated at one
  // now(), before the statement's snapshot is: a now() after it could name a snapshot committed meanwhile.
  const binder = new Binder(ctx, held, bound);
  await binder.evaluate([...statement.refs.map((r) => r.at), ...statement.calls.flatMap((c) => (c.catalog?.kind === 'table_changes' ? [c.catalog.from, c.catalog.to] : []))].filter(isTimeExpression));
  const inTransaction = ctx.pending === true && at === undefined;
  const wanted = statement.calls.some((c) => c.catalog !== undefined) || statement.refs.some((r) => r.at === undefined);
  const statementAt = inTransaction || !wanted ? undefined : { snapshot: await snapshotOf(ctx, at) };
  const loaded = await loadCalls(ctx, statement.calls, statementAt, { selector: (a) => binder.selector(a), held });
  const { scans, newest, files } = await bindScans(binder, statement.refs, statementAt);
  const readCatalog = statementAt !== undefined && statement.calls.some((c) => c.catalog !== undefined);
  const snapshot = readCatalog ? (Math.max(newest ?? 0, statementAt.snapshot) as SnapshotId) : newest;
  const { bounds, kept } = statement.parameters;
  return { sql: inline(inline(statement.text, `${PLACEHOLDER}f`, loaded), PLACEHOLDER, scans), meta: { snapshot, files }, params: keptParams(bound, bounds, kept) };
}

/** The scan of each table function call the statement may not run as written: host rows loaded first, or refused. */
async function loadCalls(ctx: PlaneContext, calls: readonly TableCall[], at: { snapshot: SnapshotId } | undefined, reads: RelationReads): Promise<string[]> {
  const scans: string[] = [];
  const reach = ctx.hostFiles;
  for (const call of calls) {
    if (call.catalog !== undefined) {
      scans.push(await catalogRelationScan(ctx, call.catalog, at, reads));
      continue;
    }
    if (reach === false || !isHostReader(call.name)) throw refusedTableFunction(call.name, call.sql.replace(/^SELECT \* FROM /, ''), reach !== false);
    scans.push(loadedScan(await loadHostRows(ctx.engine, reach, call.sql)));
  }
  return scans;
}

/**
 * Statement references are rewritten to this, then their position, then replaced by their scans. Random per
 * process, so that no text a caller writes (a string constant) can hold one.
 */
const PLACEHOLDER = `__strata_${randomHex(6)}_`;

/** Views of the catalog expand into views of their own references, at most this deep (a cycle stops here). */
const MAX_VIEW_DEPTH = 16;

/**
 * The scan of each reference of the statement, in order. A reference to a catalog view binds the view's own
 * statement, its references at the same snapshot (or their own AT).
 */
async function bindScans(binder: Binder, refs: readonly TableRef[], statementAt: { snapshot: SnapshotId } | undefined) {
  const scans: string[] = [];
  // A reference without AT reads the statement's snapshot (undefined inside a transaction: its own state).
  for (const [i, ref] of refs.entries()) scans.push(await binder.bind(ref, ref.at ?? statementAt, 0, `${PLACEHOLDER}${i}_`));
  return { scans, newest: binder.newest, files: binder.files };
}

const isTimeExpression = (at: AtClause | undefined): at is TimeExpression => at !== undefined && 'timeExpression' in at;

/** A bound's parameter's value as a snapshot: a snapshot id (a whole number), or a time (a string or a Date). */
function parameterSelector(at: ParameterBound, value: DuckDBValue | undefined): SnapshotSelector {
  const name = `$${at.parameter}`;
  if (value === undefined) throw new StrataError('INVALID_ARGUMENT', `${at.where} is ${name}, and sql() params gives it no value`);
  if (typeof value === 'number' || typeof value === 'bigint') return { snapshot: parseSnapshotId(`${at.where} (${name})`, String(value)) };
  if (typeof value === 'string') return { timestamp: parseInstant(`${at.where} (${name})`, value) };
  if (value instanceof DuckDBTimestampTZValue) return { timestamp: parseInstant(`${at.where} (${name})`, Number(value.micros / 1000n)) };
  throw new StrataError('INVALID_ARGUMENT', `${at.where} is ${name}, which takes a snapshot id (a number or bigint) or a time (a string or a Date); got ${value === null ? 'null' : typeof value}`);
}

/**
 * The SELECT that reads each of `refs` at its own AT (time expressions evaluated together: one now()), with
 * its columns as DuckDB types them: what a statement that writes reads of a table's past (past-reads.ts).
 */
export async function pastScans(ctx: PlaneContext, held: StatementFiles, refs: readonly TableRef[]): Promise<{ sql: string; columns: { name: string; type: string }[] }[]> {
  const binder = new Binder(ctx, held);
  await binder.evaluate(refs.map((r) => r.at).filter(isTimeExpression));
  const out = [];
  for (const [i, ref] of refs.entries()) {
    const sql = await binder.bind(ref, ref.at, 0, `${PLACEHOLDER}p${i}_`);
    out.push({ sql, columns: await ctx.engine.withConnection((c) => columnsOf(c, sql)) });
  }
  return out;
}

class Binder {
  /** The scan of each (table, snapshot) bound so far: a repeat reads the same files, listed once. */
  private readonly scans = new Map<string, string>();
  /** Each AT (TIMESTAMP => expression)'s time, by its text: evaluated once per statement. */
  private readonly times = new Map<string, number>();
  readonly files = noFiles();
  newest: SnapshotId | null = null;

  constructor(
    private readonly ctx: PlaneContext,
    private readonly held: StatementFiles,
    /** The values of the statement's parameters, which a table_changes() bound may take. */
    private readonly params?: BoundParams,
  ) {}

  /**
   * The SELECT that reads `ref` at `selector`. `prefix` names the placeholders of a catalog view's own
   * references, should `ref` be one.
   */
  async bind(ref: TableRef, at: AtClause | undefined, depth: number, prefix: string): Promise<string> {
    const selector = at === undefined ? undefined : await this.selector(at);
    const r = await this.ctx.reads.reader(selector);
    try {
      const at = r.snapshot.id;
      this.newest = this.newest === null ? at : (Math.max(this.newest, at) as SnapshotId);
      // A reference with its own filter gets its own scan (its files may be fewer); others share one.
      const key = JSON.stringify([ref.schema, ref.table, selector === undefined ? 'pending' : at, ref.filter === undefined ? null : prefix]);
      let scan = this.scans.get(key);
      if (scan === undefined) {
        const view = await r.viewNamed(ref.schema, ref.table);
        scan = view === undefined ? (await scanAt(this.ctx, r, ref, this.held, this.files)).sql : await this.expand(view, ref, selector === undefined ? undefined : { snapshot: at }, depth, prefix);
        this.scans.set(key, scan);
      }
      return scan;
    } finally {
      await r.close();
    }
  }

  /**
   * Evaluates AT (TIMESTAMP => expression)s in one query, on the statement's own connection (the sandbox the
   * statement runs in), so that now() is one time in all of them.
   */
  async evaluate(expressions: readonly TimeExpression[]): Promise<void> {
    const texts = [...new Set(expressions.map((e) => e.timeExpression))].filter((t) => !this.times.has(t));
    if (texts.length === 0) return;
    // A TIMESTAMPTZ (now()) is an instant; a TIMESTAMP, DATE or string is wall time read as UTC, as the API
    // reads '2026-03-01 12:00' (snapshot-names.ts), never in the process's time zone.
    const instant = (t: string) => `CASE WHEN typeof(${t}) = 'TIMESTAMP WITH TIME ZONE' THEN epoch_ms(CAST(${t} AS TIMESTAMPTZ)) ELSE epoch_ms(CAST(${t} AS TIMESTAMP)) END`;
    const select = `SELECT ${texts.map((t, i) => `${instant(`(${t})`)} AS t${i}`).join(', ')}`;
    const row = await this.ctx.engine
      .withConnection(async (c) => (await run(() => c.runAndReadAll(select))).getRows()[0]!)
      .catch((e: unknown) => {
        if (!isStrataError(e, 'INVALID_ARGUMENT')) throw e;
        throw new StrataError('INVALID_ARGUMENT', `${expressions[0]!.where}${expressions.length > 1 ? ' (or another AT of the statement)' : ''}: its time could not be evaluated: ${e.message}`);
      });
    texts.forEach((t, i) => {
      const ms = row[i];
      const where = expressions.find((e) => e.timeExpression === t)!.where;
      if (ms === null || ms === undefined) throw new StrataError('INVALID_ARGUMENT', `${where}: the time ${t} is NULL; give a time`);
      this.times.set(t, parseInstant(where, Number(ms)));
    });
  }

  /** The selector of an AT clause or a bound: a time expression's time, evaluated once per statement. */
  async selector(at: AtClause): Promise<SnapshotSelector> {
    if ('parameter' in at) return parameterSelector(at, paramValue(this.params, at.parameter));
    if (!isTimeExpression(at)) return at;
    await this.evaluate([at]);
    return { timestamp: this.times.get(at.timeExpression)! };
  }

  private async expand(view: ViewInfo, ref: TableRef, selector: SnapshotSelector | undefined, depth: number, prefix: string): Promise<string> {
    const name = `${ref.schema}.${ref.table}`;
    if (depth >= MAX_VIEW_DEPTH) {
      throw new StrataError('INVALID_ARGUMENT', `view ${name} expands past ${MAX_VIEW_DEPTH} levels of views; does it refer to itself?`);
    }
    const run: ScalarSql = (q, arg) => this.ctx.engine.textFunction(q, arg);
    const inner = await prepareDefinition(await definitionOf(run, view, name), prefix, run);
    if (inner.kind !== 'select') throw new StrataError('INVALID_ARGUMENT', `view ${name} is not a SELECT; a view reads, it cannot write`);
    // A view is the catalog's: it reads the catalog's tables, never a file, whoever reads it.
    const [call] = inner.calls;
    if (call?.catalog !== undefined) {
      throw new StrataError('INVALID_ARGUMENT', `view ${name} reads ${call.name === 'describe' ? 'DESCRIBE' : call.name.startsWith('show') ? 'SHOW' : `${call.name}()`}, which a view may not: a view reads the catalog's tables, not the catalog's own relations; query those in the statement itself`);
    }
    if (call !== undefined) throw new StrataError('INVALID_ARGUMENT', `view ${name} calls ${call.name}(…), which a view may not: a view reads the catalog's tables and no file; drop it and create it anew`);
    const scans: string[] = [];
    for (const [i, r] of inner.refs.entries()) scans.push(await this.bind(r, r.at ?? selector, depth + 1, `${prefix}${i}_`));
    return inline(inner.text, prefix, scans);
  }
}

async function snapshotOf(ctx: PlaneContext, at: SnapshotSelector | undefined): Promise<SnapshotId> {
  const r = await ctx.reads.reader(at);
  await r.close();
  return r.snapshot.id;
}

/** Whether `text` is a SELECT (else a statement that writes), from the same cache the statement runs from. */
export async function isSelect(ctx: PlaneContext, text: string): Promise<boolean> {
  const statement = await prepare(text, PLACEHOLDER, (sql, arg) => ctx.engine.textFunction(sql, arg));
  return statement.kind === 'select';
}

/**
 * The name mapping rows of the held files that have one, by file id; the others are read by field id, and a
 * statement reads none that carries no field ids (FieldIdChecks, before DuckDB reads them).
 */
export async function mappingsOf(
  ctx: PlaneContext,
  r: ReadState,
  ref: { schema: string; table: string },
  files: readonly DataFileInfo[],
  local: ReadonlyMap<FileId, string>,
): Promise<{ mappings: Map<FileId, readonly NameMappingColumn[]>; layouts: Map<FileId, FileLayout | undefined> }> {
  const byId = files.filter((f) => f.mappingId === null);
  const found = await ctx.fieldIds.carried(
    byId.map((f) => {
      const recorded = recordedFile(ctx.dataPath, f);
      return { local: local.get(f.id)!, identity: identityOf(recorded), named: ctx.store.url(recorded.key) };
    }),
  );
  const layouts = new Map(byId.map((f, i) => [f.id, found[i]]));
  if (byId.length === files.length) return { mappings: new Map(), layouts };
  return { mappings: new Map([...(await r.nameMappings(ref.schema, ref.table, files))].map(([id, m]) => [id, m.columns])), layouts };
}

/**
 * Before a statement applies delete files or builds on them: their positions fit their data files (decision
 * 0040; once per process and file, before DuckDB applies them). `keep`: the statement applies them from
 * the positions kept in memory (kept-positions.ts), which the check reads them into.
 */
export function checkDeletes(ctx: PlaneContext, deletes: readonly { file: DeleteFileInfo; local: string; recordCount: number }[], keep = false): Promise<void> {
  return ctx.positions.trusted(
    deletes.map(({ file, local, recordCount }) => {
      const recorded = recordedFile(ctx.dataPath, file);
      return { local, identity: identityOf(recorded), named: ctx.store.url(recorded.key), dataFileId: file.dataFileId, recordCount, deleteCount: file.deleteCount };
    }),
    keep,
  );
}

/**
 * The field-id check's value once it and the delete-position check both passed. They run at once rather
 * than one after the other, the delete check started first: it is DuckDB's work on its own threads, while
 * the field-id check reads footers on this one (~1.4 ms a file the first time). The field-id check's error
 * is the one thrown when both fail, as when it ran first.
 */
export async function checkedTogether<T>(fieldIds: () => Promise<T>, deletes: () => Promise<void>): Promise<T> {
  const positionsChecked = deletes();
  const [ids, positions] = await Promise.allSettled([fieldIds(), positionsChecked]);
  if (ids.status === 'rejected') throw ids.reason;
  if (positions.status === 'rejected') throw positions.reason;
  return ids.value;
}

/** A table's scan at a reader's snapshot, with the files it reads (held locally for the statement). */
export interface BoundScan {
  sql: string;
  files: { id: FileId; path: string; local: string; recordCount: number }[];
  /** The delete file of each data file that has one, by the data file's id. */
  deletes: Map<FileId, { local: string; deleteCount: number }>;
}

/**
 * The scan of one table in a reader's snapshot (of its files in `only`, if given), its files held locally for
 * the statement; with `positions`, each row also says which file and row it is and its row id (POSITION).
 */
export async function scanAt(
  ctx: PlaneContext,
  r: ReadState,
  ref: TableRef,
  held: StatementFiles,
  count: FileCounts,
  positions = false,
  only?: ReadonlySet<FileId>,
): Promise<BoundScan> {
  const table = await r.table(ref.schema, ref.table);
  const all = await r.dataFiles(ref.schema, ref.table);
  const listed = only === undefined ? all : all.filter((f) => only.has(f.id));
  const tests = ref.filter === undefined ? [] : testsOf(ref.filter.where as never, new Set(ref.filter.names));
  let files = listed;
  if (tests.length > 0) {
    const stats = await r.columnStats(ref.schema, ref.table, listed);
    const skip = skippable(tests, table.columns, listed.map((f) => stats.get(f.id)));
    files = listed.filter((_f, i) => !skip.has(i));
  }
  count.listed += listed.length;
  count.skipped += listed.length - files.length;
  count.tables.push({ schema: ref.schema, table: ref.table, snapshot: r.snapshot.id as SnapshotId, listed: listed.length, skipped: listed.length - files.length });
  // Only the delete files of the data files read: a skipped file's deletes are neither fetched nor joined.
  const records = new Map(files.map((f) => [f.id, f.recordCount]));
  const deletes = (await r.deleteFiles(ref.schema, ref.table)).filter((d) => records.has(d.dataFileId));
  // The data and delete files' bytes in one hold, then their field ids and positions at once: a statement's
  // first read of a file waits for each kind of check before DuckDB reads it, but not for one after another.
  // A statement that answers only once its checks passed (a SELECT) runs beside the positions' check instead:
  // the positions it applies are the ones the check reads (both read them where they are kept), and a file
  // that fails is its CORRUPT, the rows DuckDB made of it never returned.
  const both = await held.hold([...files, ...deletes].map((f) => recordedFile(ctx.dataPath, f)));
  const [data, del] = [both.slice(0, files.length), both.slice(files.length)];
  const local = new Map(files.map((f, i) => [f.id, data[i]!]));
  const positionsChecked = () =>
    checkDeletes(
      ctx,
      deletes.map((d, i) => ({ file: d, local: del[i]!, recordCount: records.get(d.dataFileId)! })),
      true,
    );
  const { mappings, layouts } = await checkedTogether(
    () => mappingsOf(ctx, r, ref, files, local),
    held.answersAfterChecks ? async () => held.vouch(positionsChecked()) : positionsChecked,
  );
  const identities = deletes.map((d) => identityOf(recordedFile(ctx.dataPath, d)));
  const kept = ctx.positions.kept;
  const holding = await kept.hold(deletes.map((d, i) => ({ identity: identities[i]!, local: del[i]!, deleteCount: d.deleteCount })));
  held.keep(holding);
  const sql = tableScan(
    {
      columns: table.columns,
      files: files.map((f, i) => ({ local: data[i]!, rowIdStart: f.rowIdStart, mapping: mappings.get(f.id), layout: layouts.get(f.id) })),
      deletes: deletes.map((d, i) => ({ local: del[i]!, dataFile: local.get(d.dataFileId)!, slot: holding.slots.get(identities[i]!) })),
      kept: kept.table,
    },
    positions,
  );
  return {
    sql,
    files: files.map((f) => ({ id: f.id, path: f.path, local: local.get(f.id)!, recordCount: f.recordCount })),
    deletes: new Map(deletes.map((d, i) => [d.dataFileId, { local: del[i]!, deleteCount: d.deleteCount }])),
  };
}
