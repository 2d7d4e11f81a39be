// Values cross into JavaScript exactly (docs/DESIGN.md §8.1, decision 0036), the same way from sql(), sqlBatches,
// tableChanges and a write's RETURNING: numbers, bigints, bytes, lists and structs as such (NaN, -0 and 2^64-1
// included), and what JavaScript has no exact type for (DECIMAL, DATE, TIME, TIMETZ, every TIMESTAMP, INTERVAL)
// as DuckDB's own text of it — compared with a plain DuckDB holding the same rows.
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { expectCode, openCatalog } from '../helpers.js';
import { EVERY_TYPE_COLUMNS, EVERY_TYPE_ROWS } from '../support/every-type.js';

const NAMES = EVERY_TYPE_COLUMNS.map((c) => c.split(' ')[0]!);
const AS_TEXT = ['dec', 'frac', 'd', 't', 'ttz', 'ts', 'tstz', 'ts_s', 'ts_ms', 'ts_ns', 'iv', 's', 'id', 'doc'];

async function modelText(): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const m = await instance.connect();
  try {
    await m.run("SET TimeZone = 'UTC'");
    await m.run(`CREATE TABLE t (${EVERY_TYPE_COLUMNS.join(', ')})`);
    await m.run(`INSERT INTO t VALUES ${EVERY_TYPE_ROWS.join(', ')}`);
    return (await m.runAndReadAll(`SELECT ${NAMES.map((n) => `${n}::VARCHAR AS ${n}`).join(', ')} FROM t ORDER BY n`)).getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    m.closeSync();
    instance.closeSync();
  }
}

describe('values crossing into JavaScript', () => {
  it('every type arrives exactly and alike from sql(), sqlBatches, tableChanges and RETURNING', async () => {
    const c = await openCatalog();
    await c.sql(`CREATE TABLE t (${EVERY_TYPE_COLUMNS.join(', ')})`);
    const { snapshot: created } = await c.sql(`CREATE TABLE copy (${EVERY_TYPE_COLUMNS.join(', ')})`);
    await c.sql(`INSERT INTO t VALUES ${EVERY_TYPE_ROWS.join(', ')}`);
    const rows = (await c.sql('SELECT * FROM t ORDER BY n')).rows;
    const model = await modelText();

    // What JavaScript cannot hold exactly is DuckDB's text, as a plain DuckDB prints the same rows.
    for (const [i, row] of rows.entries()) {
      expect(Object.fromEntries(AS_TEXT.map((n) => [n, row[n]])), `row ${i + 1}`).toEqual(Object.fromEntries(AS_TEXT.map((n) => [n, model[i]![n]])));
    }
    // The rest exactly, as JavaScript values.
    const [low, high, nulls] = rows;
    expect(low).toMatchObject({ b: true, i8: -128, i64: -9223372036854775808n, u64: 0n, l: [], st: { a: '', b: [] }, m: [] });
    expect(Number.isNaN(low!.f32)).toBe(true);
    expect(Object.is(low!.f64, -0)).toBe(true);
    expect(low!.bl).toBeInstanceOf(Uint8Array);
    expect([...(low!.bl as Uint8Array)]).toEqual([]);
    expect(high).toMatchObject({ i64: 9223372036854775807n, u32: 4294967295, u64: 18446744073709551615n, f32: Math.fround(3.4028235e38), f64: 1.7976931348623157e308 });
    expect([...(high!.bl as Uint8Array)]).toEqual([0xaa, 0x00, 0x5c, 0x2c]);
    expect(high!.l).toEqual([1, null, 3]);
    expect(high!.st).toEqual({ a: 'x y', b: [1.5, Number.NaN, -Infinity] });
    expect(high!.m).toEqual([
      { key: 'k=v', value: '36:00:00' },
      { key: 'null', value: null },
    ]);
    expect(Object.values(nulls!).filter((v) => v !== null)).toEqual([3]);

    const streamed = [];
    for await (const b of c.sqlBatches('SELECT * FROM t ORDER BY n')) streamed.push(...b.rows);
    expect(streamed).toEqual(rows);
    const changes = (await c.tableChanges('main', 't', { from: created!, to: (await c.snapshots()).at(-1)!.id })).rows;
    expect(changes.map(({ snapshot_id: _s, rowid: _r, change_type: _c, ...row }) => row).sort((a, b) => (a.n as number) - (b.n as number))).toEqual(rows);
    const returned = (await c.sql('INSERT INTO copy SELECT * FROM t ORDER BY n RETURNING *')).rows;
    expect(returned).toEqual(rows);
  });

  it('text keeps every character, a leading byte-order mark too, whole and streamed, in lists and structs', async () => {
    // DuckDB's Node API decodes text with a TextDecoder that drops a leading U+FEFF: 'abc' came back for a value
    // DuckDB holds as four characters. Compared by bytes, which no decoder stands between.
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (i INT, s VARCHAR)');
    await c.sql(`INSERT INTO t VALUES (1, chr(65279) || 'abc'), (2, chr(65279)), (3, 'a' || chr(65279)), (4, chr(65279) || chr(65279) || 'x'), (5, 'plain')`);
    const query = "SELECT i, s, hex(s) AS h, [s] AS l, {'f': s} AS st FROM t ORDER BY i";
    const hex = (text: unknown) => Buffer.from(text as string).toString('hex').toUpperCase();
    const whole = (await c.sql(query)).rows;
    const streamed: Record<string, unknown>[] = [];
    for await (const batch of c.sqlBatches(query)) streamed.push(...batch.rows);
    for (const rows of [whole, streamed]) {
      expect(rows).toHaveLength(5);
      for (const r of rows) {
        expect([hex(r.s), hex((r.l as unknown[])[0]), hex((r.st as { f: unknown }).f)], `row ${r.i}`).toEqual([r.h, r.h, r.h]);
      }
    }
  });

  it('a value Parquet cannot hold (a negative INTERVAL) is INVALID_ARGUMENT saying so, not an unreachable store; nothing commits', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (iv INTERVAL)');
    const before = (await c.snapshots()).length;
    await expectCode(c.sql("INSERT INTO t VALUES (INTERVAL '-1 day')"), 'INVALID_ARGUMENT', /a negative INTERVAL cannot be stored: Parquet's INTERVAL has no sign/);
    expect((await c.snapshots()).length).toBe(before);
  });

  it('a column name given twice keeps both values: the second is named as its row keys it', async () => {
    const c = await openCatalog();
    const r = await c.sql('SELECT 1 AS a, 2 AS a, 3 AS b');
    expect(r.rows).toEqual([{ a: 1, 'a:1': 2, b: 3 }]);
    expect(r.columns.map((col) => col.name)).toEqual(['a', 'a:1', 'b']);
    for await (const batch of c.sqlBatches('SELECT 1 AS a, 2 AS a')) expect(batch.columns.map((col) => batch.rows[0]![col.name])).toEqual([1, 2]);
  });
});

describe('names a JavaScript object cannot hold', () => {
  it('a column or a STRUCT field named __proto__ is refused, whole or streamed, never answered without its value', async () => {
    const c = await openCatalog();
    for (const q of [
      `SELECT struct_pack("__proto__" := 'x') AS s`,
      `SELECT [struct_pack(a := 1, "__proto__" := [2])] AS l`,
      `SELECT MAP {'k': struct_pack("__proto__" := NULL)} AS m`,
      `SELECT 1 AS "__proto__"`,
    ]) {
      await expectCode(c.sql(q), 'INVALID_ARGUMENT', /__proto__.*name it otherwise/);
      const batches = async () => {
        for await (const _ of c.sqlBatches(q)) void _;
      };
      await expectCode(batches(), 'INVALID_ARGUMENT', /__proto__/);
    }
    // Any other name, __proto__ inside a value included, reads back.
    expect((await c.sql(`SELECT struct_pack(proto := '__proto__') AS s, '__proto__' AS "__proto"`)).rows).toEqual([{ s: { proto: '__proto__' }, __proto: '__proto__' }]);
  });
});
