// The floor each catalog.sql query is held against: the same question asked of DuckDB over the same Parquet
// files named directly, deletes applied as DuckDB users write it themselves (the delete files' own file_path
// joined to read_parquet's filename). No field-id mapping: these files' names already are the table's.
import { sqlText } from './parquet-writer.js';

const list = (paths: readonly string[]) => `[${paths.map(sqlText).join(', ')}]`;

/** `select` over the rows of `data` that `deletes` (DuckLake positional delete files) leave, as `d`. */
export function scanWithDeletes(select: string, data: readonly string[], deletes: readonly string[], where = ''): string {
  return (
    `${select} FROM read_parquet(${list(data)}, filename = true, file_row_number = true) AS d ` +
    `ANTI JOIN read_parquet(${list(deletes)}) AS x ON x.file_path = d.filename AND x.pos = d.file_row_number${where ? ` WHERE ${where}` : ''}`
  );
}

export const readParquet = (data: readonly string[]) => `read_parquet(${list(data)})`;

export const countOf = (data: readonly string[]) => `SELECT count(*) AS n FROM ${readParquet(data)}`;

/** The self-join of a table at two snapshots, each side its files at that snapshot. */
export const selfJoin = (older: readonly string[], newer: readonly string[]) =>
  `SELECT count(*) AS n FROM read_parquet(${list(older)}) AS a JOIN read_parquet(${list(newer)}) AS b ON a.id = b.id`;
