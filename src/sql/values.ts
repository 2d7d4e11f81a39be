// How a result's values come to JavaScript: as the node API gives them (BIGINT as bigint, TIMESTAMP as Date,
// structs as objects), except DECIMAL, which comes as its exact text ("12.50") — the node API's double would
// round a DECIMAL(38,…) past 15 digits, and money must not change on the way out (node-postgres does the same
// for NUMERIC). Nested values convert field by field, so a DECIMAL in a list is text too.
import type { DuckDBConnection, DuckDBResultReader, DuckDBValueConverter, JS } from '@duckdb/node-api';
import { run } from './engine.js';

let converter: Promise<DuckDBValueConverter<JS>> | undefined;

/** The converter, made once DuckDB is loaded (a process that never runs SQL never loads it). */
export function exactValues(): Promise<DuckDBValueConverter<JS>> {
  converter ??= import('@duckdb/node-api').then(({ DuckDBTypeId, JSDuckDBValueConverter }) => {
    const exact: DuckDBValueConverter<JS> = (value, type, self) =>
      value !== null && type.typeId === DuckDBTypeId.DECIMAL ? String(value) : JSDuckDBValueConverter(value, type, self);
    return exact;
  });
  return converter;
}

/** A result's rows and its columns, named and typed as DuckDB gives them. */
export interface Rows {
  rows: Record<string, unknown>[];
  columns: { name: string; type: string }[];
}

function columnsOf(r: { columnNames(): string[]; columnTypes(): { toString(): string }[] }): Rows['columns'] {
  const types = r.columnTypes();
  return r.columnNames().map((name, i) => ({ name, type: types[i]!.toString() }));
}

/** A result read whole. */
export async function rowsOf(r: DuckDBResultReader): Promise<Rows> {
  return { rows: r.convertRowObjects(await exactValues()) as Record<string, unknown>[], columns: columnsOf(r) };
}

/** `sql`'s columns, and its rows in the batches DuckDB produces them in (2,048 rows): memory bounded by a batch. */
export async function streamRows(c: DuckDBConnection, sql: string): Promise<{ columns: Rows['columns']; batches: AsyncGenerator<Rows['rows']> }> {
  const result = await run(() => c.stream(sql));
  const converted = result.yieldConvertedRowObjects(await exactValues());
  async function* batches(): AsyncGenerator<Rows['rows']> {
    for (;;) {
      const next = await run(() => converted.next());
      if (next.done) return;
      yield next.value as Rows['rows'];
    }
  }
  return { columns: columnsOf(result), batches: batches() };
}
