// DDL through catalog.sql: DuckDB plans the statement over the mirror of the head (decision 0011), and the
// plan's info — names, columns with their types, NOT NULLs and defaults, the view's query — becomes the same
// transaction operations the API has, one commit per statement. IF [NOT] EXISTS is a failure the
// transaction catches; OR REPLACE a drop and a create in the one commit.
import type { SnapshotId } from '../../keys/ids.js';
import type { ReadState } from '../read/read-state.js';
import { isStrataError, StrataError } from '../errors.js';
import type { Transaction, ColumnSpec } from '../txn/transaction.js';
import { lakeTypeOfPlan, type PlanType } from './duck-types.js';
import type { DuckColumn, Mirror, PlanNode } from './mirror.js';
import { noFiles, type PlaneContext } from './query.js';
import { bigText, deserializable, protectBig, type ScalarSql } from './statement.js';
import { ident } from './sql-text.js';

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

interface Expr {
  class: string;
  value?: { type: PlanType; is_null: boolean; value: unknown };
  child?: Expr;
}

/** A default as the catalog keeps it — the text of a constant — or INVALID_ARGUMENT for anything else. */
function defaultText(column: string, e: Expr): string | null {
  if (e.class === 'CAST' && e.child !== undefined) return defaultText(column, e.child);
  if (e.class !== 'CONSTANT' || e.value === undefined) {
    throw invalid(`the default of column ${JSON.stringify(column)} must be a constant (a number, a string, DATE '…'); an expression such as now() would be evaluated differently by every engine`);
  }
  const { type, is_null: isNull, value } = e.value;
  if (isNull) return null;
  // A DECIMAL past 18 digits is a 128-bit integer, its halves apart: the upper signed, the lower not.
  const huge = value !== null && typeof value === 'object' ? (value as { upper: unknown; lower: unknown }) : undefined;
  const text = huge === undefined ? bigText(value) : String(BigInt(bigText(huge.upper)) * 2n ** 64n + BigInt(bigText(huge.lower)));
  if (type.id !== 'DECIMAL') return text;
  // A DECIMAL constant is its unscaled integer: 125 at scale 1 is 12.5.
  const scale = type.type_info!.scale!;
  const digits = text.replace('-', '').padStart(scale + 1, '0');
  return `${text.startsWith('-') ? '-' : ''}${digits.slice(0, digits.length - scale)}${scale > 0 ? `.${digits.slice(-scale)}` : ''}`;
}

interface PlanColumn {
  name: string;
  type: PlanType;
  expression: Expr | null;
}

function columnSpec(c: PlanColumn, notNull: boolean): ColumnSpec {
  const lake = lakeTypeOfPlan(c.type);
  if (lake === undefined) throw invalid(`column ${JSON.stringify(c.name)} has type ${c.type.id}, which the catalog does not hold; see the column types in the README`);
  const spec: ColumnSpec = { name: c.name, type: lake.type, nullable: !notNull };
  if (lake.children !== undefined) spec.children = lake.children as ColumnSpec[];
  if (c.expression !== null) spec.default = defaultText(c.name, c.expression);
  return spec;
}

export interface TableInfoNode {
  schema: string;
  table: string;
  on_conflict: string;
  columns: { columns: PlanColumn[] };
  constraints: { type: string; index?: number }[];
}

export function tableColumns(info: TableInfoNode): ColumnSpec[] {
  const notNull = new Set<number>();
  for (const k of info.constraints) {
    if (k.type === 'NOT_NULL') notNull.add(k.index!);
    else throw invalid(`${info.schema}.${info.table}: a ${k.type.replace('_', ' ')} constraint is not kept by the catalog (DuckLake keeps NOT NULL only); leave it out`);
  }
  return info.columns.columns.map((c, i) => columnSpec(c, notNull.has(i)));
}

/** The operations one DDL statement makes, for a transaction; undefined when the plan is not DDL (a CREATE TABLE … AS is create-as.ts's). */
export async function ddlOperations(plan: PlanNode, run: ScalarSql): Promise<((tx: Transaction) => Promise<unknown>) | undefined> {
  const info = plan.info as Record<string, unknown>;
  const schemaOf = (s: unknown) => (typeof s === 'string' && s !== '' ? s : 'main');
  const ifExists = (missing: boolean, work: Promise<unknown>) => (missing ? ignore(work, 'NOT_FOUND') : work);
  switch (plan.type) {
    case 'LOGICAL_CREATE_SCHEMA': {
      const name = info.schema as string;
      return (tx) => (info.on_conflict === 'IGNORE_ON_CONFLICT' ? ignore(tx.createSchema(name), 'ALREADY_EXISTS') : tx.createSchema(name));
    }
    case 'LOGICAL_CREATE_TABLE': {
      const t = info as unknown as TableInfoNode;
      const columns = tableColumns(t);
      const schema = schemaOf(t.schema);
      if (t.on_conflict === 'REPLACE_ON_CONFLICT') {
        return async (tx) => {
          await ignore(tx.dropTable(schema, t.table), 'NOT_FOUND');
          return tx.createTable(schema, t.table, columns);
        };
      }
      return (tx) => (t.on_conflict === 'IGNORE_ON_CONFLICT' ? ignore(tx.createTable(schema, t.table, columns), 'ALREADY_EXISTS') : tx.createTable(schema, t.table, columns));
    }
    case 'LOGICAL_CREATE_VIEW': {
      const schema = schemaOf(info.schema);
      const name = info.view_name as string;
      const aliases = info.aliases as string[];
      let sql = await run('SELECT json_deserialize_sql($1::VARCHAR) AS v', deserializable({ error: false, statements: [info.query] }));
      if (aliases.length > 0) sql = `SELECT * FROM (${sql}) AS v(${aliases.map((a) => `"${a.replaceAll('"', '""')}"`).join(', ')})`;
      return async (tx) => {
        if (info.on_conflict === 'REPLACE_ON_CONFLICT') await ignore(tx.dropView(schema, name), 'NOT_FOUND');
        else if (info.on_conflict === 'IGNORE_ON_CONFLICT') return ignore(tx.createView(schema, name, sql), 'ALREADY_EXISTS');
        return tx.createView(schema, name, sql);
      };
    }
    case 'LOGICAL_DROP': {
      const missingOk = info.if_not_found === 'RETURN_NULL';
      const name = info.name as string;
      if (info.type === 'SCHEMA_ENTRY') return (tx) => ifExists(missingOk, tx.dropSchema(name, { cascade: info.cascade === true }));
      if (info.type === 'TABLE_ENTRY') return (tx) => ifExists(missingOk, tx.dropTable(schemaOf(info.schema), name));
      if (info.type === 'VIEW_ENTRY') return (tx) => ifExists(missingOk, tx.dropView(schemaOf(info.schema), name));
      throw invalid(`DROP of a ${String(info.type).replace('_ENTRY', '').toLowerCase()} is not something the catalog holds`);
    }
    case 'LOGICAL_ALTER':
      return alterOperation(info, schemaOf(info.schema));
    default:
      return undefined;
  }
}

function alterOperation(info: Record<string, unknown>, schema: string): (tx: Transaction) => Promise<unknown> {
  const table = info.name as string;
  const missingOk = info.if_not_found === 'RETURN_NULL';
  const guard = (work: (tx: Transaction) => Promise<unknown>) => (tx: Transaction) => (missingOk ? ignore(work(tx), 'NOT_FOUND') : work(tx));
  if (info.type !== 'ALTER_TABLE') throw invalid(`ALTER ${String(info.type).replace('ALTER_', '')} is not run by the catalog: drop the view and create it anew`);
  switch (info.alter_table_type) {
    case 'ADD_COLUMN': {
      const spec = columnSpec(info.new_column as PlanColumn, false);
      return guard((tx) => (info.if_column_not_exists === true ? ignore(tx.addColumn(schema, table, spec), 'ALREADY_EXISTS') : tx.addColumn(schema, table, spec)));
    }
    case 'REMOVE_COLUMN': {
      const column = info.removed_column as string;
      return guard((tx) => (info.if_column_exists === true ? ignore(tx.dropColumn(schema, table, column), 'NOT_FOUND') : tx.dropColumn(schema, table, column)));
    }
    case 'RENAME_COLUMN':
      return guard((tx) => tx.renameColumn(schema, table, info.old_name as string, info.new_name as string));
    case 'RENAME_TABLE':
      return guard((tx) => tx.renameTable(schema, table, info.new_table_name as string));
    case 'ALTER_COLUMN_TYPE': {
      const column = info.column_name as string;
      const lake = lakeTypeOfPlan(info.target_type as PlanType);
      if (lake === undefined || lake.children !== undefined) throw invalid(`column ${JSON.stringify(column)} cannot become ${(info.target_type as PlanType).id}: a column's type only widens (int32 to int64, float32 to float64, …)`);
      return guard((tx) => tx.alterColumnType(schema, table, column, lake.type));
    }
    default:
      throw invalid(`ALTER TABLE … ${String(info.alter_table_type).replaceAll('_', ' ')} is not run by the catalog; it runs ADD, DROP and RENAME COLUMN, RENAME TO and ALTER COLUMN … TYPE`);
  }
}

/**
 * The operations of an ALTER TABLE … ADD COLUMN that DuckDB's planner cannot serialise (a default that is not a
 * bare literal, such as DATE '…' or true: Mirror.columnsAround). DuckDB runs it on an empty copy of the head;
 * each column it added is planned again alone for its type, and its default is the expression DuckDB recorded,
 * parsed (never run) — the ColumnSpec a planned ADD COLUMN gives. A statement that did anything else is refused.
 */
export async function addedColumnsByExample(mirror: Mirror, r: ReadState, text: string, run: ScalarSql): Promise<(tx: Transaction) => Promise<unknown>> {
  const { before, after } = await mirror.columnsAround(r, text);
  const key = (c: DuckColumn) => JSON.stringify([c.schema_name, c.table_name, c.column_name]);
  const was = new Map(before.map((c) => [key(c), c]));
  const now = new Set(after.map(key));
  const added = after.filter((c) => !was.has(key(c)));
  const altered = before.some((c) => !now.has(key(c))) || after.some((c) => was.has(key(c)) && (was.get(key(c))!.data_type !== c.data_type || was.get(key(c))!.column_default !== c.column_default));
  if (altered || new Set(added.map((c) => JSON.stringify([c.schema_name, c.table_name]))).size > 1) {
    throw invalid('sql() runs one statement at a time; this one is not run by the catalog (DuckDB cannot plan it as one ALTER TABLE … ADD COLUMN)');
  }
  const specs: { schema: string; table: string; spec: ColumnSpec }[] = [];
  for (const c of added) {
    const alone = await mirror.plan(r, `ALTER TABLE ${ident(c.schema_name)}.${ident(c.table_name)} ADD COLUMN ${ident(c.column_name)} ${c.data_type}`);
    if (!alone.ok) throw invalid(`column ${JSON.stringify(c.column_name)}: ${alone.failure.message}`);
    const column = (alone.plan.info as { new_column: PlanColumn }).new_column;
    const expression = c.column_default === null ? null : defaultExpression(await run('SELECT json_serialize_sql($1::VARCHAR) AS v', `SELECT ${c.column_default}`));
    specs.push({ schema: c.schema_name, table: c.table_name, spec: columnSpec({ ...column, expression }, false) });
  }
  return async (tx) => {
    for (const { schema, table, spec } of specs) await tx.addColumn(schema, table, spec);
  };
}

/** The one expression of `SELECT <default>` as json_serialize_sql gives it. */
function defaultExpression(serialised: string): Expr {
  const tree = JSON.parse(protectBig(serialised)) as { error: boolean; statements?: { node: { select_list: Expr[] } }[] };
  if (tree.error || tree.statements?.length !== 1) throw invalid('a column default DuckDB recorded does not parse as one expression');
  return tree.statements[0]!.node.select_list[0]!;
}

/** `work`, with a failure of `code` taken as done (IF EXISTS, IF NOT EXISTS); any other failure stands. */
export async function ignore(work: Promise<unknown>, code: 'NOT_FOUND' | 'ALREADY_EXISTS'): Promise<unknown> {
  try {
    return await work;
  } catch (e) {
    if (isStrataError(e, code)) return undefined;
    throw e;
  }
}

/** Runs a DDL statement's operations as one commit. */
export async function runDdl(ctx: PlaneContext, text: string, operations: (tx: Transaction) => Promise<unknown>, head: SnapshotId) {
  const { snapshot } = await ctx.transaction((tx) => operations(tx), { message: text.trim().slice(0, 200) });
  return { rows: [], columns: [], snapshot: snapshot ?? head, files: noFiles() };
}
