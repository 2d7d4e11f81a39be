// A view is one SELECT (docs/DESIGN.md §8.1). DuckDB's parser checks its text when it is created (or imported), and
// the catalog keeps what the parser made of it. What DuckDB later binds — the mirror's CREATE VIEW, a read
// that expands the view — is text DuckDB prints again from that checked tree, never the text that was stored:
// stored text is data, and `SELECT 1; COPY … TO '/any'` cannot become two statements.
import { StrataError } from '../errors.js';
import type { ViewInfo } from '../read/records.js';
import { deserializable, oneSelect, parseSelect, type ScalarSql, Statement } from './statement.js';

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

/** Why a view may not read snapshots(), table_changes() and their kin: what CREATE VIEW and createView() say. */
export const CATALOG_RELATIONS =
  "cannot read the catalog's own relations (snapshots(), table_changes(), files(), information_schema, …): they describe the lake at a statement's snapshot, and a view is expanded inside the queries that read it; query them directly, or keep their rows with CREATE TABLE … AS";

/** `sql` as a view's definition: DuckDB's serialised parse of one SELECT, or INVALID_ARGUMENT saying why not. */
export async function viewDefinition(run: ScalarSql, sql: string, view: string): Promise<string> {
  const parsed = await parseSelect(sql, run).catch((e: unknown) => {
    throw e instanceof StrataError ? invalid(`view ${view} must be one SELECT statement: ${e.message}`) : e;
  });
  if (parsed === undefined) throw invalid(`view ${view} must be one SELECT statement; DuckDB's parser reads this text as a statement of another kind (a view reads, it cannot write)`);
  if (Statement.of(parsed.tree).readsCatalog()) throw invalid(`view ${view} ${CATALOG_RELATIONS}`);
  return parsed.serialised;
}

/**
 * A view's definition as the catalog reads it: the one it stored, or — for a view stored before definitions
 * were kept — its text checked now by the parser (parsed, never run). A view in another dialect has none.
 */
export async function definitionOf(run: ScalarSql, v: ViewInfo, view: string): Promise<string> {
  if (v.definition !== null) return v.definition;
  if (v.dialect !== 'duckdb') throw invalid(`view ${view} is written in ${JSON.stringify(v.dialect)}, which DuckDB does not read; query it with an engine that speaks that dialect`);
  return viewDefinition(run, v.sql, view);
}

/** The view's SELECT as DuckDB prints it from its checked definition: the text to bind. */
export function viewText(run: ScalarSql, definition: string): Promise<string> {
  return run('SELECT json_deserialize_sql($1::VARCHAR) AS v', deserializable(oneSelect(definition)));
}
