// How a result's values come to JavaScript: as the node API gives them (BIGINT as bigint, TIMESTAMP as Date,
// structs as objects), except DECIMAL, which comes as its exact text ("12.50") — the node API's double would
// round a DECIMAL(38,…) past 15 digits, and money must not change on the way out (node-postgres does the same
// for NUMERIC). Nested values convert field by field, so a DECIMAL in a list is text too.
import type { DuckDBValueConverter, JS } from '@duckdb/node-api';

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
