// A SELECT over the catalog: each table reference bound to its files at its snapshot (its own AT clause,
// else the statement's `at`, else the newest snapshot, resolved once for the whole statement), read through
// a temporary view, and the statement run by DuckDB with the references pointing at those views.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SnapshotId } from '../../keys/ids.js';
import { options } from '../arguments.js';
import type { Reader } from '../read/reader.js';
import type { SnapshotSelector } from '../read/resolve-snapshot.js';
import type { ObjectStore } from '../store/object-store.js';
import { type Engine, run, scalar } from './engine.js';
import type { Held, LocalFiles } from './local-files.js';
import { skippable, testsOf } from './pruning.js';
import { Statement, type TableRef } from './statement.js';
import { ident, tableScan } from './table-scan.js';

export interface SqlOptions {
  /** The snapshot of every table reference without an AT clause of its own (default: the newest). */
  at?: SnapshotSelector;
}

export interface SqlResult {
  /** Objects keyed by column name, values as DuckDB's node API gives them in JavaScript. */
  rows: Record<string, unknown>[];
  columns: { name: string; type: string }[];
  /** The newest snapshot the statement read (null: it read no catalog table). */
  snapshot: SnapshotId | null;
  /** Data files the statement's table references named, and how many of them their statistics let it skip. */
  files: { listed: number; skipped: number };
}

/** What the SQL layer needs of a catalog: readers, its store and data path, DuckDB, the local files. */
export interface PlaneContext {
  reader(selector?: SnapshotSelector): Promise<Reader>;
  store: ObjectStore;
  dataPath: string;
  engine: Engine;
  files: LocalFiles;
}

export async function select(ctx: PlaneContext, text: string, given: SqlOptions | undefined): Promise<SqlResult> {
  return ctx.engine.withConnection(async (c) => {
    const held: Held[] = [];
    try {
      const { sql, meta } = await bind(ctx, c, text, given, held);
      const reader = await run(() => c.runAndReadAll(sql));
      const columns = reader.columnNames().map((name, i) => ({ name, type: reader.columnTypes()[i]!.toString() }));
      return { rows: reader.getRowObjectsJS() as Record<string, unknown>[], columns, ...meta };
    } finally {
      for (const h of held) h.release();
    }
  });
}

/**
 * The same result in the batches DuckDB produces it in (2,048 rows): memory stays bounded however large
 * the result. The statement's files stay held until the last batch, or until the caller stops early.
 */
export async function* selectBatches(ctx: PlaneContext, text: string, given: SqlOptions | undefined): AsyncGenerator<SqlResult> {
  const c = await ctx.engine.connect();
  const held: Held[] = [];
  try {
    const { sql, meta } = await bind(ctx, c, text, given, held);
    const result = await run(() => c.stream(sql));
    const columns = result.columnNames().map((name, i) => ({ name, type: result.columnTypes()[i]!.toString() }));
    const batches = result.yieldRowObjectJs();
    for (;;) {
      const next = await run(() => batches.next());
      if (next.done) return;
      yield { rows: next.value as Record<string, unknown>[], columns, ...meta };
    }
  } finally {
    for (const h of held) h.release();
    c.closeSync();
  }
}

/** Parses the statement and binds its references on `c`: the text DuckDB runs, and what it read. */
async function bind(ctx: PlaneContext, c: DuckDBConnection, text: string, given: SqlOptions | undefined, held: Held[]) {
  const { at } = options('sql()', given, ['at']);
  if (at !== undefined) options('sql() at', at, ['snapshot', 'timestamp', 'tag']);
  const statement = await Statement.parse(text, (sql, arg) => scalar(c, sql, arg));
  const { names, newest, files } = await bindViews(ctx, c, statement.refs, at, held);
  return { sql: await statement.rewrite(names, (q, arg) => scalar(c, q, arg)), meta: { snapshot: newest, files } };
}

/** One temporary view per distinct (table, snapshot) of the statement; the view name of each reference. */
async function bindViews(ctx: PlaneContext, c: DuckDBConnection, refs: readonly TableRef[], at: SnapshotSelector | undefined, held: Held[]) {
  const names: string[] = [];
  const views = new Map<string, string>();
  const files = { listed: 0, skipped: 0 };
  let newest: SnapshotId | null = null;
  let statementSnapshot: SnapshotId | undefined;
  for (const ref of refs) {
    let selector = ref.at;
    if (selector === undefined) {
      // One snapshot for every reference without AT, resolved once: the statement reads one state.
      statementSnapshot ??= await snapshotOf(ctx, at);
      selector = { snapshot: statementSnapshot };
    }
    const r = await ctx.reader(selector);
    try {
      // A reference with its own filter gets its own view (its files may be fewer); others share one.
      const key = JSON.stringify([ref.schema, ref.table, r.snapshot.id, ref.filter === undefined ? null : names.length]);
      let name = views.get(key);
      if (name === undefined) {
        name = `__strata_${views.size}`;
        const scan = await scanAt(ctx, r, ref, held, files);
        await run(() => c.run(`CREATE TEMP VIEW ${ident(name!)} AS ${scan}`));
        views.set(key, name);
      }
      names.push(name);
      newest = newest === null ? r.snapshot.id : (Math.max(newest, r.snapshot.id) as SnapshotId);
    } finally {
      await r.close();
    }
  }
  return { names, newest, files };
}

async function snapshotOf(ctx: PlaneContext, at: SnapshotSelector | undefined): Promise<SnapshotId> {
  const r = await ctx.reader(at);
  await r.close();
  return r.snapshot.id;
}

/** The scan of one table in a reader's snapshot, its files held locally for the statement. */
async function scanAt(ctx: PlaneContext, r: Reader, ref: TableRef, held: Held[], count: { listed: number; skipped: number }): Promise<string> {
  const table = await r.table(ref.schema, ref.table);
  const listed = await r.dataFiles(ref.schema, ref.table);
  const tests = ref.filter === undefined ? [] : testsOf(ref.filter.where as never, new Set(ref.filter.names));
  let files = listed;
  if (tests.length > 0) {
    const stats = await r.columnStats(ref.schema, ref.table, listed);
    const skip = skippable(tests, table.columns, listed.map((f) => stats.get(f.id)));
    files = listed.filter((_f, i) => !skip.has(i));
  }
  count.listed += listed.length;
  count.skipped += listed.length - files.length;
  const deletes = await r.deleteFiles(ref.schema, ref.table);
  const data = await ctx.files.hold(files.map((f) => `${ctx.dataPath}${f.path}`));
  held.push(data);
  const local = new Map(files.map((f, i) => [f.id, data.paths[i]!]));
  const del = await ctx.files.hold(deletes.map((d) => `${ctx.dataPath}${d.path}`));
  held.push(del);
  return tableScan({
    columns: table.columns,
    files: data.paths.map((p) => ({ local: p })),
    // A delete file's data file is live whenever the delete file is (a removed data file ends its deletes).
    deletes: deletes.map((d, i) => ({ local: del.paths[i]!, dataFile: local.get(d.dataFileId)! })).filter((d) => d.dataFile !== undefined),
  });
}
