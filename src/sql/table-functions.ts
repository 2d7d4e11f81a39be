// Which of DuckDB's table functions a statement may call (decision 0030). DuckDB confines the lake's engine
// to the lake's own directories, and that is not enough by itself: a statement naming the store's files
// (read_parquet('<data path>/**')) would read rows that retain-from retired, or that a delete file hides.
// Some table functions change the instance instead of reading rows: enable_profiling() makes DuckDB print a
// profile of every later query to the process's stdout, configuration lock or not. So a statement calls
// the functions that compute rows from their arguments alone; the readers of files only when its caller
// opted in to host files, and then their rows are loaded first by an instance that reaches those files
// and nothing of the lake (host-files.ts); any other, never.
import { StrataError } from '../errors.js';

/** Table functions whose rows come from their arguments alone. */
const PURE = new Set(['range', 'generate_series', 'unnest', 'repeat', 'repeat_row', 'json_each', 'json_tree']);

/** Table functions that read the rows of files, and do nothing else. */
const HOST_READERS = new Set([
  'read_csv',
  'read_csv_auto',
  'read_json',
  'read_json_auto',
  'read_ndjson',
  'read_ndjson_auto',
  'read_json_objects',
  'read_json_objects_auto',
  'read_ndjson_objects',
  'read_parquet',
  'parquet_scan',
  'read_text',
  'read_blob',
]);

/** Whether the table function `name` may run as the statement wrote it. */
export const isPureTableFunction = (name: string) => PURE.has(name.toLowerCase());

/** Whether the table function `name` reads files, and so runs only on host files loaded first. */
export const isHostReader = (name: string) => HOST_READERS.has(name.toLowerCase());

/** The refusal of table function `name` (`call` is how the statement called it), for a statement with host files on or not. */
export function refusedTableFunction(name: string, call: string, hostFiles: boolean): StrataError {
  if (isHostReader(name) && !hostFiles) {
    return new StrataError(
      'INVALID_ARGUMENT',
      `the statement reads a file (${call}): sql() reads the catalog's tables by name, and host files only for a caller that opts in, ` +
        'with sql(q, { hostFiles: true }) or Catalog.open({ sql: { hostFiles: true } }) (or a list of directories)',
    );
  }
  return new StrataError(
    'INVALID_ARGUMENT',
    `the statement calls ${name}(…), which sql() does not run: the table functions it runs are ${[...PURE].join(', ')}` +
      `, and with host files on ${[...HOST_READERS].join(', ')}`,
  );
}
