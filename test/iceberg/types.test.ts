// Every Strata column type is either served as its Iceberg type or refused naming the column: never served as
// a type an Iceberg reader would read wrong.
import { describe, expect, it } from 'vitest';
import { PRIMITIVE_TYPES } from '../../keys/column-types.js';
import { columnId } from '../../keys/ids.js';
import { icebergSchema, lastColumnId } from '../../src/iceberg/types.js';
import type { ColumnInfo } from '../../src/read/records.js';

let order = 0;
const col = (id: number, name: string, type: string, children?: ColumnInfo[], nullsAllowed = true): ColumnInfo => ({
  id: columnId(id),
  name,
  type,
  order: ++order,
  nullsAllowed,
  defaultValue: null,
  ...(children === undefined ? {} : { children }),
});

const served: Record<string, string> = {
  boolean: 'boolean', int8: 'int', int16: 'int', int32: 'int', uint8: 'int', uint16: 'int', int64: 'long',
  float32: 'float', float64: 'double', date: 'date', time: 'time', timestamp: 'timestamp', timestamptz: 'timestamptz',
  varchar: 'string', json: 'string', blob: 'binary', uuid: 'uuid',
};

describe('Iceberg types of Strata columns', () => {
  it('each primitive type is served as its Iceberg type or refused with the column named', () => {
    for (const t of PRIMITIVE_TYPES) {
      const build = () => icebergSchema('main.t', 0, [col(1, 'ok', 'int64'), col(2, 'c', t)]);
      if (t in served) {
        expect(build().fields[1]!.type, t).toBe(served[t]);
      } else {
        expect(build, t).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(`table main.t cannot be served as an Iceberg table: its column c is ${t}, which has no Iceberg v2 type (`) }));
      }
    }
  });

  it('refuses the unsigned 32-bit type for the reason an engine would misread it', () => {
    expect(() => icebergSchema('main.t', 0, [col(1, 'n', 'uint32')])).toThrow(
      'table main.t cannot be served as an Iceberg table: its column n is uint32, which has no Iceberg v2 type (DuckDB writes it as a signed 32-bit ' +
        'Parquet integer, which an Iceberg reader would read negative past 2^31); keep such values in a column of a type Iceberg has (BIGINT, ' +
        'DECIMAL(38,0), TIMESTAMP, VARCHAR) to serve the table',
    );
  });

  it('a decimal keeps its precision and scale', () => {
    expect(icebergSchema('main.t', 0, [col(1, 'd', 'decimal(38,9)')]).fields[0]!.type).toBe('decimal(38,9)');
  });

  it('nested columns carry their children’s ids as field, element, key and value ids, and NOT NULL as required', () => {
    const columns = [
      col(1, 'id', 'int64', undefined, false),
      col(2, 's', 'struct', [col(3, 'a', 'varchar'), col(4, 'l', 'list', [col(5, 'element', 'int32', undefined, false)])]),
      col(6, 'm', 'map', [col(7, 'key', 'varchar', undefined, false), col(8, 'value', 'float64')]),
    ];
    expect(icebergSchema('main.t', 3, columns)).toEqual({
      type: 'struct',
      'schema-id': 3,
      fields: [
        { id: 1, name: 'id', required: true, type: 'long' },
        {
          id: 2, name: 's', required: false,
          type: { type: 'struct', fields: [
            { id: 3, name: 'a', required: false, type: 'string' },
            { id: 4, name: 'l', required: false, type: { type: 'list', 'element-id': 5, 'element-required': true, element: 'int' } },
          ] },
        },
        { id: 6, name: 'm', required: false, type: { type: 'map', 'key-id': 7, key: 'string', 'value-id': 8, 'value-required': false, value: 'double' } },
      ],
    });
    expect(lastColumnId(columns)).toBe(8);
  });

  it('names the nested path of a field it cannot serve', () => {
    const columns = [col(1, 's', 'struct', [col(2, 'l', 'list', [col(3, 'element', 'interval')])])];
    expect(() => icebergSchema('main.t', 0, columns)).toThrow('its column s.l.element is interval, which has no Iceberg v2 type (Iceberg has no interval)');
  });
});
