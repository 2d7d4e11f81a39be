// The catalog's head as DuckDB's binder needs it to plan a statement DuckDB does not serialise (INSERT, and
// the writes and DDL after it): an in-memory database of empty tables with the head's columns, types,
// defaults and NOT NULLs, and the head's views. json_serialize_plan over it gives DuckDB's own bound plan —
// the target table, the tables read, the columns — so no SQL grammar of ours decides what a statement means.
// One mirror per schema version (the snapshot counter DDL moves), built on first use and kept while it is
// the head's.
import type { DuckDBConnection } from '@duckdb/node-api';
import { StrataError } from '../errors.js';
import type { ReadState } from '../read/read-state.js';
import type { ColumnInfo, TableInfo } from '../read/records.js';
import { duckType } from './duck-types.js';
import { type Connections, duckdb, run } from './engine.js';
import { protectBig, type ScalarSql } from './statement.js';
import { definitionOf, viewText } from './view-definition.js';
import { defaultOf } from './table-scan.js';
import { ident, literal } from './sql-text.js';
import { randomHex } from '../random.js';

/** A node of DuckDB's serialised logical plan. */
export interface PlanNode {
  type: string;
  children: PlanNode[];
  [k: string]: unknown;
}

/** A column as duckdb_columns() describes it. */
export interface DuckColumn {
  schema_name: string;
  table_name: string;
  column_name: string;
  data_type: string;
  column_default: string | null;
}

/** A table the plan names: DuckDB's schema and table names of a catalog table. */
export interface Named {
  schema: string;
  table: string;
}

/** Every node of the plan of `type`, depth first. */
export function nodesOf(plan: PlanNode, type: string, out: PlanNode[] = []): PlanNode[] {
  if (plan.type === type) out.push(plan);
  for (const child of plan.children) nodesOf(child, type, out);
  return out;
}

export const sameTable = (a: Named, b: Named): boolean => a.schema === b.schema && a.table === b.table;

/** The tables the plan scans, each once (DuckDB has expanded the views already): the catalog's, not the temporary shapes of loaded host rows. */
export function tablesRead(plan: PlanNode): Named[] {
  const seen = new Map<string, Named>();
  for (const get of nodesOf(plan, 'LOGICAL_GET')) {
    const data = get.function_data as { catalog?: string; schema?: string; table?: string } | undefined;
    if (get.name !== 'seq_scan' || data?.schema === undefined || data.table === undefined || data.catalog === 'temp') continue;
    seen.set(JSON.stringify([data.schema, data.table]), { schema: data.schema, table: data.table });
  }
  return [...seen.values()];
}

/** Number types: a default of theirs that is a plain number is written bare. */
const NUMBER_TYPE = /^(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|DECIMAL\(\d+,\s*\d+\)|FLOAT|DOUBLE)$/;

/**
 * A column's default (the catalog keeps its value as text) written as a user writes it, so that DESCRIBE and
 * information_schema show it as DuckDB shows one written so: a string quoted ('x'), a number or a boolean bare,
 * any other value cast to the column's type. A float's only where no row is written (`shown`, the mirror): a
 * bare literal is a DECIMAL, whose cast to a float can round otherwise than the text's.
 */
function defaultExpression(c: ColumnInfo, shown: boolean): string {
  const value = c.defaultValue!;
  const type = duckType(c);
  if (type === 'VARCHAR') return literal(value);
  if (NUMBER_TYPE.test(type) && /^-?\d+(\.\d+)?$/.test(value) && (shown || !/FLOAT|DOUBLE/.test(type))) return value;
  if (type === 'BOOLEAN' && (value === 'true' || value === 'false')) return value;
  return defaultOf(c);
}

/**
 * `CREATE TABLE` for a table as the catalog has it: its columns in order, typed, with defaults and NOT NULLs
 * (then `extra` columns); `shown` for the mirror, which only shows its defaults (DESCRIBE, information_schema).
 */
export function createTable(qualified: string, info: TableInfo, extra: readonly string[] = [], shown = false): string {
  const columns = [...info.columns]
    .sort((a, b) => a.order - b.order)
    .map((c) => `${ident(c.name)} ${duckType(c)}${c.defaultValue === null ? '' : ` DEFAULT ${defaultExpression(c, shown)}`}${c.nullsAllowed ? '' : ' NOT NULL'}`);
  return `CREATE TABLE ${qualified} (${[...columns, ...extra].join(', ')})`;
}

/**
 * Creates the catalog views of `r` on `c` that bind there, each from its checked definition (DuckDB's text
 * printed from one SELECT: view-definition.ts), never from stored text. A view that does not bind, is in
 * another dialect, or whose text is not one SELECT is left out: the mirror plans writes, and a statement
 * that reads such a view fails on its own when it binds it.
 */
export async function createViews(c: DuckDBConnection, r: ReadState, database: string, run: ScalarSql, wanted: (name: string) => boolean = () => true): Promise<void> {
  const pending: string[] = [];
  for (const s of await r.schemas()) {
    for (const v of await r.views(s.name)) {
      if (!wanted(v.name)) continue;
      const name = `${ident(database)}.${ident(s.name)}.${ident(v.name)}`;
      const text = await definitionOf(run, v, `${s.name}.${v.name}`).then((d) => viewText(run, d)).catch(() => undefined);
      if (text !== undefined) pending.push(`CREATE VIEW ${name} AS ${text}`);
    }
  }
  // A view may read a view created after it: passes until one creates nothing.
  for (let made = true; made && pending.length > 0; ) {
    made = false;
    for (const [i, sql] of [...pending.entries()].reverse()) {
      const created = await c.run(sql).then(
        () => true,
        () => false,
      );
      if (created) {
        pending.splice(i, 1);
        made = true;
      }
    }
  }
}

/** Why DuckDB could not plan a statement, as json_serialize_plan says: the kind of error, its message, and where (a byte offset into the statement). */
export interface PlanFailure {
  type: string;
  message: string;
  position: number | undefined;
}

/** A statement planned, or why it could not be. */
export type Planned = { ok: true; plan: PlanNode } | { ok: false; failure: PlanFailure };

/**
 * Every name `text` can give a table or view, lowercased as DuckDB matches them: each identifier in it, bare
 * or quoted. More than it names (keywords, columns, aliases, words in strings), never less.
 */
export function namesIn(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/"((?:[^"]|"")*)"|([\p{L}_][\p{L}\p{N}_$]*)/gu)) out.add((m[1] === undefined ? m[2]! : m[1].replaceAll('""', '"')).toLowerCase());
  return out;
}

/** Which tables and views a mirror holds: all of the head's, or those a statement's text can name. */
type Scope = { all: true } | { all: false; names: ReadonlySet<string> };

const ALL: Scope = { all: true };

/** Mirrors kept built: the newest few, of any scope and schema version (one of a few tables is small). */
const KEPT = 8;

export class Mirror {
  /** The mirror databases built, by schema version and scope, oldest first. */
  private readonly built = new Map<string, Promise<string>>();

  /** `engine`: the planner's connections, which reach no file (engine.ts); `parse`: its parser functions. */
  constructor(
    private readonly engine: Connections,
    private readonly parse: ScalarSql,
  ) {}

  /**
   * DuckDB's bound logical plan of `text` at the head `r`, each of `shapes` (CREATE TEMP TABLE statements)
   * made first on the planning connection; one statement, else INVALID_ARGUMENT. A statement that does not
   * bind there (an unknown table, a wrong type, a file) is a failure with DuckDB's message and position.
   */
  async plan(r: ReadState, text: string, shapes: readonly string[] = []): Promise<Planned> {
    // First over only the tables and views the text can name: a one-row INSERT into a catalog of a thousand
    // tables spent ~450 ms mirroring them all. What does not bind there is planned over the whole head, so a
    // statement that fails fails as it would there, with the same message.
    const scoped = await this.planOver(r, await this.scopeOf(r, text), text, shapes);
    if (scoped.ok || !/^(catalog|binder)$/i.test(scoped.failure.type)) return scoped;
    return this.planOver(r, ALL, text, shapes);
  }

  /**
   * The names of the head's tables and views that `text` can name, with those the SQL of each such view can
   * name, and so on (the tables a view reads bind with it): only names the head has, so statements that
   * differ in their values share a mirror.
   */
  private async scopeOf(r: ReadState, text: string): Promise<Scope> {
    const schemas = await r.schemas();
    const views = (await Promise.all(schemas.map((s) => r.views(s.name)))).flat();
    const tables = (await Promise.all(schemas.map((s) => r.tables(s.name)))).flat();
    const names = namesIn(text);
    for (let grew = true; grew; ) {
      grew = false;
      for (const v of views) {
        if (!names.has(v.name.toLowerCase())) continue;
        for (const n of namesIn(v.sql)) if (!names.has(n)) (names.add(n), (grew = true));
      }
    }
    const held = new Set([...tables, ...views].map((x) => x.name.toLowerCase()));
    return { all: false, names: new Set([...names].filter((n) => held.has(n))) };
  }

  private async planOver(r: ReadState, scope: Scope, text: string, shapes: readonly string[]): Promise<Planned> {
    const database = await this.of(r, scope);
    const own = r.snapshot.schemaVersion === null;
    return this.engine.withConnection(async (c) => {
      try {
        await run(() => c.run(`USE ${ident(database)}`));
        for (const shape of shapes) await run(() => c.run(shape));
        const planned = await planOn(c, text);
        if (planned.ok) refuseOutsideTheLake(planned.plan, database);
        return planned;
      } finally {
        if (own) await c.run(`USE memory; DETACH DATABASE IF EXISTS ${ident(database)}`).catch(() => undefined);
      }
    });
  }

  /**
   * The columns of the head's tables before and after DuckDB runs `text` on an empty copy of the mirror: for
   * the DDL its planner cannot serialise, an ALTER … ADD COLUMN … DEFAULT whose default is not a bare literal
   * (DATE '…', true), which DuckDB's transformer splits into several statements (add, fill, set default).
   * Only those kinds of statement run, and only on the copy.
   */
  async columnsAround(r: ReadState, text: string): Promise<{ before: DuckColumn[]; after: DuckColumn[] }> {
    const database = await this.of(r, ALL);
    const copy = `strata_example_${randomHex(4)}`;
    return this.engine.withConnection(async (c) => {
      const columns = async () =>
        (await run(() => c.runAndReadAll(`SELECT schema_name, table_name, column_name, data_type, column_default FROM duckdb_columns() WHERE database_name = ${literal(copy)} ORDER BY ALL`)))
          .getRowObjectsJS()
          .map((x) => x as unknown as DuckColumn);
      try {
        await run(() => c.run(`ATTACH ':memory:' AS ${ident(copy)}; COPY FROM DATABASE ${ident(database)} TO ${ident(copy)}; USE ${ident(copy)}`));
        const before = await columns();
        // What DuckDB splits an ALTER … ADD COLUMN … DEFAULT into: a transaction, the ALTERs, the UPDATE that fills it.
        const { StatementType } = duckdb();
        const allowed = new Set([StatementType.TRANSACTION, StatementType.ALTER, StatementType.UPDATE]);
        const pieces = await run(() => c.extractStatements(text));
        for (let i = 0; i < pieces.count; i++) {
          const piece = await run(() => pieces.prepare(i));
          if (!allowed.has(piece.statementType)) throw new StrataError('INVALID_ARGUMENT', 'sql() runs one statement at a time, and this one is not a single ALTER TABLE … ADD COLUMN');
          await run(() => piece.run());
        }
        return { before, after: await columns() };
      } finally {
        await c.run(`USE memory; DETACH DATABASE IF EXISTS ${ident(copy)}`).catch(() => undefined);
      }
    });
  }

  /**
   * What DuckDB answers from its own catalog about the catalog's tables at `r` (DESCRIBE, SHOW TABLES, SHOW ALL
   * TABLES), over the mirror: the statement `sql(database)` makes, run there, and its rows as JSON values with
   * DuckDB's names for their types.
   */
  async answer(r: ReadState, sql: (database: string) => string): Promise<{ columns: { name: string; type: string }[]; rows: Record<string, unknown>[] }> {
    const database = await this.of(r, ALL);
    // A transaction's own mirror is built for this call alone (of): gone after it, as after a plan.
    const own = r.snapshot.schemaVersion === null;
    return this.engine.withConnection(async (c) => {
      try {
        await run(() => c.run(`USE ${ident(database)}`));
        const result = await run(() => c.runAndReadAll(sql(database)));
        const types = result.columnTypes();
        return { columns: result.deduplicatedColumnNames().map((name, i) => ({ name, type: types[i]!.toString() })), rows: result.getRowObjectsJson() as Record<string, unknown>[] };
      } finally {
        if (own) await c.run(`USE memory; DETACH DATABASE IF EXISTS ${ident(database)}`).catch(() => undefined);
      }
    });
  }

  private of(r: ReadState, scope: Scope): Promise<string> {
    const version = r.snapshot.schemaVersion;
    // A transaction's own schema changes make a state no snapshot has: its mirror is its own, built each time.
    if (version === null) return this.build(r, scope);
    const key = JSON.stringify([version, scope.all ? null : [...scope.names].sort()]);
    let p = this.built.get(key);
    if (p === undefined) {
      p = this.build(r, scope);
      p.catch(() => this.built.delete(key));
      this.built.set(key, p);
      // The oldest go; a statement still planning on one holds its own connection, not the name.
      for (const k of [...this.built.keys()].slice(0, -KEPT)) {
        const old = this.built.get(k)!;
        this.built.delete(k);
        void old.then((db) => this.engine.withConnection((c) => c.run(`DETACH DATABASE IF EXISTS ${ident(db)}`))).catch(() => undefined);
      }
    }
    return p;
  }

  private async build(r: ReadState, scope: Scope): Promise<string> {
    const wanted = (name: string) => scope.all || scope.names.has(name.toLowerCase());
    const database = `strata_mirror_${r.snapshot.schemaVersion ?? 'pending'}_${randomHex(4)}`;
    return this.engine.withConnection(async (c) => {
      await run(() => c.run(`ATTACH ':memory:' AS ${ident(database)}`));
      const ddl: string[] = [];
      for (const s of await r.schemas()) {
        ddl.push(`CREATE SCHEMA IF NOT EXISTS ${ident(database)}.${ident(s.name)}`);
        for (const t of await r.tables(s.name)) {
          if (wanted(t.name)) ddl.push(`${createTable(`${ident(database)}.${ident(s.name)}.${ident(t.name)}`, await r.table(s.name, t.name), [], true)};`);
        }
      }
      // One round trip for all of them: a thousand tables take one statement list, not a thousand calls.
      if (ddl.length > 0) await run(() => c.run(ddl.join(';\n')));
      await run(() => c.run(`USE ${ident(database)}`));
      await createViews(c, r, database, this.parse, wanted);
      return database;
    });
  }
}

/**
 * A plan that names another database than the mirror (the engine's own `memory`, shared by every connection),
 * or that makes a TEMP object, is about DuckDB's catalog, not the lake's: it would commit a lake table for
 * `CREATE TEMP TABLE t`, or run against the engine's own database. Reads of loaded host rows (TEMP shapes) stand.
 */
function refuseOutsideTheLake(plan: PlanNode, database: string): void {
  const check = (o: unknown): void => {
    if (Array.isArray(o)) return o.forEach(check);
    if (o === null || typeof o !== 'object') return;
    for (const [k, v] of Object.entries(o as Record<string, unknown>)) {
      if ((k === 'info' || k === 'table_info' || k === 'function_data') && v !== null && typeof v === 'object') {
        const { catalog, temporary } = v as { catalog?: unknown; temporary?: unknown };
        if (temporary === true) throw new StrataError('INVALID_ARGUMENT', 'a TEMP table or view is DuckDB\'s own, not the lake\'s, and sql() makes none: leave TEMP out to make a lake table (a WITH clause names rows for one statement)');
        const allowed = typeof catalog !== 'string' || catalog === '' || catalog === database || (k === 'function_data' && catalog === 'temp');
        if (!allowed) throw new StrataError('INVALID_ARGUMENT', `the statement names database ${JSON.stringify(catalog)}; the lake has no attached databases: name tables as schema.table`);
      }
      check(v);
    }
  };
  check(plan);
}

async function planOn(c: DuckDBConnection, text: string): Promise<Planned> {
  const raw = (await run(() => c.runAndReadAll('SELECT json_serialize_plan($1::VARCHAR)', [text]))).getRows()[0]![0];
  // Numbers past 2^53 (a BIGINT constant, DuckDB's "none" markers) travel as strings (statement.ts).
  const parsed = JSON.parse(protectBig(String(raw))) as { error: boolean; error_type?: string; error_message?: string; position?: string; plans?: PlanNode[] };
  if (parsed.error) {
    return { ok: false, failure: { type: String(parsed.error_type), message: String(parsed.error_message), position: parsed.position === undefined ? undefined : Number(parsed.position) } };
  }
  if (parsed.plans!.length !== 1) throw new StrataError('INVALID_ARGUMENT', `sql() runs one statement at a time; got ${parsed.plans!.length}`);
  return { ok: true, plan: parsed.plans![0]! };
}
