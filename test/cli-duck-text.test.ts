// The CLI prints every value as DuckDB prints it. The model is DuckDB itself, a plain instance apart from the
// catalog's (TimeZone UTC, the zone the catalog prints TIMESTAMPTZ in): for every type, edge values included,
// and for random doubles, floats and strings inside nested values, the value catalog.sql hands over
// (src/sql/values.ts) printed by duck-text.ts is `SELECT x::VARCHAR`. JSON reads back as the value, exactly.
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckText, floatText, jsonText, shapeOf } from '../src/cli/duck-text.js';
import type { Catalog } from '../src/index.js';
import { openCatalog } from './helpers.js';

let model: DuckDBConnection;
let instance: DuckDBInstance;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  model = await instance.connect();
  await model.run("SET TimeZone = 'UTC'");
});
afterAll(() => {
  model.closeSync();
  instance.closeSync();
});

const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** Each expression's value from catalog.sql printed by the CLI, and DuckDB's own text of it (null for NULL). */
async function printed(c: Catalog, exprs: readonly string[]): Promise<{ cli: (string | null)[]; duck: (string | null)[]; json: string[]; values: unknown[] }> {
  const r = await c.sql(`SELECT ${exprs.map((e, i) => `${e} AS c${i}`).join(', ')}`);
  const [row] = r.rows;
  const values = exprs.map((_, i) => row![`c${i}`]);
  const shapes = r.columns.map((col) => shapeOf(col.type));
  const duck = (await model.runAndReadAll(`SELECT ${exprs.map((e) => `(${e})::VARCHAR`).join(', ')}`)).getRows()[0] as (string | null)[];
  return {
    cli: values.map((v, i) => (v === null ? null : duckText(v, shapes[i]!))),
    duck,
    json: values.map((v, i) => jsonText(v, shapes[i]!)),
    values,
  };
}

async function expectAsDuckDB(c: Catalog, exprs: readonly string[]): Promise<void> {
  const { cli, duck } = await printed(c, exprs);
  expect(exprs.map((e, i) => [e, cli[i]])).toEqual(exprs.map((e, i) => [e, duck[i]]));
}

/** Every type a column can have, with its edge values. */
export const EDGES: Record<string, string[]> = {
  BOOLEAN: ['true', 'false'],
  integers: ['(-128)::TINYINT', '255::UTINYINT', '(-32768)::SMALLINT', '65535::USMALLINT', '(-2147483648)::INTEGER', '4294967295::UINTEGER'],
  BIGINT: ['(-9223372036854775808)::BIGINT', '9223372036854775807::BIGINT', '9007199254740993::BIGINT', '18446744073709551615::UBIGINT'],
  HUGEINT: ['170141183460469231731687303715884105727::HUGEINT', '(-170141183460469231731687303715884105727 - 1)::HUGEINT', '340282366920938463463374607431768211455::UHUGEINT'],
  DOUBLE: ["'nan'::DOUBLE", "'inf'::DOUBLE", "'-inf'::DOUBLE", "'-0.0'::DOUBLE", '0::DOUBLE', '0.1::DOUBLE', '1::DOUBLE', '1e15::DOUBLE', '1e16::DOUBLE', '0.0001::DOUBLE', '0.00001::DOUBLE', '5e-324::DOUBLE', '1.7976931348623157e308::DOUBLE', '123456789.125::DOUBLE', '-2.5e-7::DOUBLE'],
  FLOAT: ["'nan'::FLOAT", "'-inf'::FLOAT", "'-0.0'::FLOAT", '0.1::FLOAT', '3.4028235e38::FLOAT', '1e-45::FLOAT', '16777217::FLOAT', "'1e7'::FLOAT", '1e-5::FLOAT', '123456.0::FLOAT'],
  DECIMAL: ['123.45::DECIMAL(12,2)', '(-0.01)::DECIMAL(4,2)', "'12345678901234567890123456789012345678'::DECIMAL(38,0)", '0::DECIMAL(3,3)', '(-0.5)::DECIMAL(3,3)', "'-9999999999999999.99'::DECIMAL(18,2)"],
  DATE: ["DATE '2025-01-11'", "DATE 'infinity'", "DATE '-infinity'", "DATE '0044-03-15 (BC)'", "DATE '5877642-06-25'", "DATE '1970-01-01'"],
  TIME: ["TIME '00:00:00'", "TIME '01:02:03'", "TIME '23:59:59.999999'", "TIME '24:00:00'", "'01:02:03.123456789'::TIME_NS", "'23:59:59.000000001'::TIME_NS"],
  TIMETZ: ["TIMETZ '10:20:05.123456+02:30'", "TIMETZ '10:20:05-15:59:59'", "TIMETZ '00:00:00+00'"],
  TIMESTAMP: ["TIMESTAMP '2025-01-11 10:20:05.123456'", "TIMESTAMP 'infinity'", "TIMESTAMP '-infinity'", "TIMESTAMP '0044-03-15 (BC) 10:00'", "TIMESTAMP '294247-01-10 04:00:54.775806'", "TIMESTAMP '1969-12-31 23:59:59.999999'"],
  'TIMESTAMP_S, _MS, _NS': ["TIMESTAMP_S '2025-01-11 10:20:05'", "TIMESTAMP_MS '2025-01-11 10:20:05.123'", "TIMESTAMP_NS '2025-01-11 10:20:05.123456789'", "TIMESTAMP_NS '1677-09-22 00:00:00'", "TIMESTAMP_NS '2262-04-11 23:47:16.854775806'", "TIMESTAMP_MS '1969-12-31 23:59:59.999'"],
  TIMESTAMPTZ: ["TIMESTAMPTZ '2025-01-11 10:20:05.123456+02'", "TIMESTAMPTZ 'infinity'", "TIMESTAMPTZ '-infinity'", "TIMESTAMPTZ '1960-01-01 00:00:00+05:30'"],
  INTERVAL: ["INTERVAL '1 year 2 months 3 days 04:05:06.789'", "INTERVAL '-1 day'", "INTERVAL '0 seconds'", 'to_months(-14)', "INTERVAL '36 hours'", "INTERVAL '-00:00:00.000001'"],
  'VARCHAR, ENUM, JSON': ["'héllo'", "''", "' spaced '", "'NULL'", "'a\tb\nc'", "'{\"a\":1}'::JSON", "'ok'::ENUM('sad', 'ok')"],
  BLOB: ["'\\xAA\\x00ab\\x5C'::BLOB", '\'a"b,c\'::BLOB', "''::BLOB", "'\\x7F\\x80\\xFF'::BLOB"],
  'UUID, BIT': ["'00000000-0000-0000-0000-000000000001'::UUID", "'ffffffff-ffff-ffff-ffff-ffffffffffff'::UUID", "'101'::BIT"],
  LIST: ['[1, 2, NULL]', "['a', 'b''c', NULL, '', ' x', 'null', 'a:b', 'a\\b', 'x y']", '[[1, 2], [], NULL]', "[1.5::DOUBLE, 'nan', '-0.0']", "[123.40::DECIMAL(5,2)]", '[1, 2]::INTEGER[2]', "['\\xAA,'::BLOB, '\\x5C'::BLOB]"],
  'temporal in nested': ["[DATE '2025-01-01', DATE 'infinity']", "{'t': TIMESTAMP '2025-01-01 00:00:00.5'}", "[INTERVAL '01:00:00', INTERVAL '1 day']", "[TIMESTAMPTZ '2025-01-01 00:00:00+00']", "[TIMESTAMP_NS '2025-01-11 10:20:05.123456789']"],
  STRUCT: ["{'a': 1, 'b': 'x y'}", "{'x': [1, 2], 'y': {'z': 'q'}}", "[{'a': NULL}]", "{'a''b': 1}", 'struct_pack("a""b" := 2)'],
  MAP: ["MAP {'k': 1, 'j': NULL}", "MAP {'a b': 'x', 'k=v': '[1]'}", 'MAP {1: [1.5::DOUBLE]}', 'MAP {}::MAP(VARCHAR, INTEGER)'],
  UNION: ['union_value(num := 2)', "union_value(s := 'x,y')", "[union_value(s := 'x,y')]", "{'u': union_value(n := 1.5::DOUBLE)}"],
};

describe('values printed as DuckDB prints them', () => {
  for (const [type, exprs] of Object.entries(EDGES)) {
    it(`${type}: ${exprs.length} edge values`, async () => {
      await expectAsDuckDB(await openCatalog(), exprs);
    });
  }

  const literal = (x: number) => (Number.isNaN(x) ? 'nan' : x === Infinity ? 'inf' : x === -Infinity ? '-inf' : Object.is(x, -0) ? '-0.0' : String(x));

  it('random doubles, alone and in lists, print as DuckDB prints them', async () => {
    const c = await openCatalog();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double(), { minLength: 1, maxLength: 60 }), async (doubles) => {
        await expectAsDuckDB(c, [...doubles.map((x) => `'${literal(x)}'::DOUBLE`), `[${doubles.map((x) => `'${literal(x)}'::DOUBLE`).join(', ')}]`]);
      }),
      { numRuns: 60 },
    );
  });

  it("random floats print with their shortest digits, DuckDB's text but where its formatter gives up on them and prints the double's digits", async () => {
    // DuckDB 1.5 formats a FLOAT with fmt 6's Grisu; where Grisu cannot decide the shortest digits (about one
    // value in 200), it prints the digits of the same number as a DOUBLE instead: both read back as the FLOAT.
    const c = await openCatalog();
    let gaveUp = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.float(), { minLength: 1, maxLength: 60 }), async (floats) => {
        const { cli, duck, values } = await printed(c, floats.map((x) => `'${literal(x)}'::FLOAT`));
        for (const [i, x] of (values as number[]).entries()) {
          if (cli[i] === duck[i]) continue;
          gaveUp++;
          expect([floats[i], duck[i]]).toEqual([floats[i], floatText(x, false)]);
          expect(Math.fround(Number(cli[i]))).toBe(x);
          const significant = (t: string) => t.replace(/e.*$/, '').replace(/\D/g, '').replace(/^0+|0+$/g, '').length;
          expect(significant(cli[i]!)).toBeLessThan(significant(duck[i]!));
        }
      }),
      { numRuns: 60 },
    );
    expect(gaveUp).toBeLessThan(60);
  });

  it('random strings inside lists, structs and maps are quoted and escaped as DuckDB does', async () => {
    const c = await openCatalog();
    const tricky = fc.string({ unit: fc.constantFrom('a', 'N', 'u', 'l', 'L', ' ', '\t', '\n', ',', "'", '"', '[', ']', '{', '}', '(', ')', ':', '=', '\\', '#', 'é', '😀') });
    const anyText = fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000'));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(tricky, anyText), { minLength: 1, maxLength: 12 }), async (texts) => {
        const exprs = texts.flatMap((s) => {
          const v = sqlString(s);
          // A field named __proto__ is refused, not printed (test/sql/values.test.ts): no JavaScript object holds it.
          return [`[${v}]`, `{'k': ${v}}`, `MAP {${v}: ${v}}`, ...(s === '' || s === '__proto__' ? [] : [`struct_pack("${s.replaceAll('"', '""')}" := ${v})`])];
        });
        await expectAsDuckDB(c, exprs);
      }),
      { numRuns: 30 },
    );
  });
});

describe('values as JSON', () => {
  it('read back exactly: a DOUBLE JSON cannot carry as its DuckDB text, an integer past 2^53 as its digits, the rest as DuckDB prints them', async () => {
    const c = await openCatalog();
    const { json, duck } = await printed(c, [
      "'nan'::DOUBLE",
      "'-inf'::FLOAT",
      "'-0.0'::DOUBLE",
      '0.1::DOUBLE',
      '1e16::DOUBLE',
      '0.1::FLOAT',
      '9007199254740993::BIGINT',
      '9007199254740991::BIGINT',
      '(-170141183460469231731687303715884105727 - 1)::HUGEINT',
      '7::INTEGER',
      '12.50::DECIMAL(4,2)',
      "TIMESTAMP_NS '2025-01-11 10:20:05.123456789'",
      "INTERVAL '1 year 3 days'",
      "'\\xAA'::BLOB",
      "{'a': [1.5::DOUBLE, 'nan'], 'm': MAP {'k': 9007199254740993::BIGINT}}",
      'NULL::DOUBLE',
      'true',
    ]);
    const parsed = json.map((j) => JSON.parse(j) as unknown);
    expect(parsed[0]).toBe('nan');
    expect(parsed[1]).toBe('-inf');
    expect(Object.is(parsed[2], -0)).toBe(true);
    // A FLOAT as DuckDB prints it: its shortest digits, which read back as it in single precision.
    expect(parsed.slice(3, 11)).toEqual([0.1, 1e16, 0.1, '9007199254740993', 9007199254740991, '-170141183460469231731687303715884105728', 7, '12.50']);
    expect(parsed.slice(11, 14)).toEqual(duck.slice(11, 14));
    expect(parsed[14]).toEqual({ a: [1.5, 'nan'], m: [{ key: 'k', value: '9007199254740993' }] });
    expect(parsed.slice(15)).toEqual([null, true]);
  });

  it('every finite double is a JSON number that reads back as itself, -0 and subnormals included', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(Object.is(JSON.parse(jsonText(x, { kind: 'float', single: false })), x)).toBe(true);
        expect(Number(floatText(x, false))).toBe(x);
      }),
      { numRuns: 2000 },
    );
  });
});
