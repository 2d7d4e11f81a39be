// Iceberg's single-value bounds made from DuckDB's text, against DuckDB itself: DuckDB prints a value and
// computes its number (epoch microseconds, days, the unscaled decimal), and the bytes must decode to that
// number. The spec's own examples pin the byte layouts.
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnId } from '../../keys/ids.js';
import { bounds, singleValue } from '../../src/iceberg/bounds.js';
import { propertyRuns } from '../support/property-runs.js';

let duck: DuckDBInstance;
let c: DuckDBConnection;
beforeAll(async () => {
  duck = await DuckDBInstance.create(':memory:');
  c = await duck.connect();
});
afterAll(() => {
  c.closeSync();
  duck.closeSync();
});

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  return (await c.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
}

const hex = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('hex'));
const readLE = (b: Uint8Array) => Buffer.from(b).readBigInt64LE();
const le8 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(n);
  return Uint8Array.from(b);
};
/** Big-endian two's complement, as an independent reader of Iceberg's decimal bound would take it. */
const readBE = (b: Uint8Array) => BigInt.asIntN(b.length * 8, BigInt(`0x${Buffer.from(b).toString('hex')}`));

describe('the byte layouts of the spec', () => {
  it('numbers little-endian, at their widths', () => {
    expect(hex(singleValue('int', '1'))).toBe('01000000');
    expect(hex(singleValue('int', '-2'))).toBe('feffffff');
    expect(hex(singleValue('long', '258'))).toBe('0201000000000000');
    expect(hex(singleValue('float', '1'))).toBe('0000803f');
    expect(hex(singleValue('double', '-2.5'))).toBe('00000000000004c0');
    expect(hex(singleValue('boolean', 'true'))).toBe('01');
    expect(hex(singleValue('boolean', 'false'))).toBe('00');
  });

  it('a date as days, a time and timestamps as microseconds', () => {
    expect(hex(singleValue('date', '1970-01-02'))).toBe('01000000');
    expect(hex(singleValue('date', '1969-12-31'))).toBe('ffffffff');
    expect(readLE(singleValue('time', '00:00:01.5')!)).toBe(1_500_000n);
    expect(readLE(singleValue('timestamp', '1970-01-01 00:00:00.000001')!)).toBe(1n);
    expect(readLE(singleValue('timestamptz', '1970-01-01 00:00:00.000002+00')!)).toBe(2n);
  });

  it('a decimal as its unscaled value in the fewest big-endian bytes', () => {
    expect(hex(singleValue('decimal(9,2)', '1.00'))).toBe('64');
    expect(hex(singleValue('decimal(9,2)', '-0.01'))).toBe('ff');
    expect(hex(singleValue('decimal(9,2)', '1.28'))).toBe('0080');
    expect(hex(singleValue('decimal(9,2)', '-1.28'))).toBe('80');
    expect(hex(singleValue('decimal(9,2)', '1.2'))).toBe('78');
    expect(hex(singleValue('decimal(3,3)', '-.5'))).toBe('fe0c');
    expect(singleValue('decimal(3,3)', '-')).toBeUndefined();
  });

  it('a string as UTF-8, a uuid as its 16 bytes', () => {
    expect(hex(singleValue('string', 'é'))).toBe('c3a9');
    expect(hex(singleValue('uuid', 'f79c3e09-677c-4bbd-a479-3f349cb785e7'))).toBe('f79c3e09677c4bbda4793f349cb785e7');
  });

  it('no bound from a text that is not exactly a value of its type', () => {
    for (const [type, text] of [
      ['int', '2147483648'], ['int', '1.5'], ['long', '9223372036854775808'], ['long', ''],
      ['date', '2023-02-29'], ['date', '0044-03-15 (BC)'], ['date', 'infinity'], ['time', '24:00:00'],
      ['timestamp', '2024-01-01T00:00:00'], ['timestamp', '2024-01-01 00:00:00.1234567'], ['timestamptz', '2024-01-01 00:00:00'],
      ['decimal(9,2)', '1.234'], ['decimal(9,2)', '1e3'], ['uuid', 'not-a-uuid'], ['boolean', 'TRUE'], ['binary', '\\x01'], ['double', 'nan'],
    ] as const) {
      expect(singleValue(type, text), `${type} ${text}`).toBeUndefined();
    }
  });
});

describe('bounds against DuckDB', () => {
  const runs = propertyRuns(60);

  it('timestamps across the years 0001 to 9999 decode to DuckDB epoch microseconds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.bigInt({ min: -62135596800000000n, max: 253402300799999999n }), async (us) => {
        const [r] = await rows(`SELECT make_timestamp(${us}::BIGINT)::VARCHAR AS t, epoch_us(make_timestamp(${us}::BIGINT)) AS us`);
        expect(readLE(singleValue('timestamp', r!.t as string)!)).toBe(r!.us);
      }),
      { numRuns: runs },
    );
  });

  it('timestamptz printed in UTC decodes to the instant, and printed at another offset gives no bound', async () => {
    for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns']) {
      await c.run(`SET TimeZone = '${zone}'`);
      await fc.assert(
        fc.asyncProperty(fc.bigInt({ min: -2208988800000000n, max: 4102444800000000n }), async (us) => {
          const [r] = await rows(`SELECT make_timestamptz(${us}::BIGINT)::VARCHAR AS t, epoch_us(make_timestamptz(${us}::BIGINT)) AS us`);
          // DuckDB prints the offset to the minute: Kolkata's was +05:21:10 before 1906, which prints as +05:21.
          expect(singleValue('timestamptz', r!.t as string), `${zone} ${String(r!.t)}`).toEqual(zone === 'UTC' ? le8(r!.us as bigint) : undefined);
        }),
        { numRuns: Math.ceil(runs / 2) },
      );
    }
    await c.run(`SET TimeZone = 'UTC'`);
  });

  it('dates and times decode to DuckDB days and microseconds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -719162, max: 2932896 }), fc.bigInt({ min: 0n, max: 86399999999n }), async (d, us) => {
        const [r] = await rows(
          `SELECT (DATE '1970-01-01' + ${d})::VARCHAR AS d, (DATE '1970-01-01' + ${d}) - DATE '1970-01-01' AS days, ` +
            `(TIME '00:00:00' + to_microseconds(${us}))::VARCHAR AS t, epoch_us(TIME '00:00:00' + to_microseconds(${us})) AS us`,
        );
        expect(Buffer.from(singleValue('date', r!.d as string)!).readInt32LE()).toBe(Number(r!.days));
        expect(readLE(singleValue('time', r!.t as string)!)).toBe(r!.us);
      }),
      { numRuns: runs },
    );
  });

  it('decimals decode to their unscaled values, in the fewest bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 38 }).chain((s) => fc.tuple(fc.constant(s), fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }))), async ([scale, unscaled]) => {
        const digits = (unscaled < 0n ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
        const text = `${unscaled < 0n ? '-' : ''}${digits.slice(0, digits.length - scale)}${scale > 0 ? '.' : ''}${digits.slice(digits.length - scale)}`;
        const [r] = await rows(`SELECT '${text}'::DECIMAL(38,${scale})::VARCHAR AS v`);
        const b = singleValue(`decimal(38,${scale})`, r!.v as string)!;
        expect(readBE(b)).toBe(unscaled);
        if (b.length > 1) expect(readBE(b.subarray(1)) !== unscaled || (b[0] !== 0 && b[0] !== 0xff)).toBe(true);
      }),
      { numRuns: runs },
    );
  });

  it('floats and doubles are the values DuckDB printed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.float({ noNaN: true }), fc.double({ noNaN: true }), async (f, d) => {
        const [r] = await rows(`SELECT ${literal(f)}::FLOAT::VARCHAR AS f, ${literal(d)}::DOUBLE::VARCHAR AS d`);
        expect(Buffer.from(singleValue('float', r!.f as string)!).readFloatLE()).toBe(f);
        expect(Buffer.from(singleValue('double', r!.d as string)!).readDoubleLE()).toBe(d);
      }),
      { numRuns: runs },
    );
  });
});

/** A number as DuckDB reads it exactly: the shortest round-trip digits, or the infinities by name. */
function literal(n: number): string {
  if (n === Infinity) return `'inf'`;
  if (n === -Infinity) return `'-inf'`;
  return Object.is(n, -0) ? `'-0.0'` : `'${n}'`;
}

describe('a column bound', () => {
  const stats = { columnId: columnId(1), valueCount: 3, nullCount: 0, min: '1.5', max: '2.5', containsNan: false };

  it('both ends or neither', () => {
    expect(bounds('double', stats)).toEqual({ lower: singleValue('double', '1.5'), upper: singleValue('double', '2.5') });
    expect(bounds('double', { ...stats, max: null })).toBeUndefined();
    expect(bounds('int', { ...stats, min: '1', max: 'x' })).toBeUndefined();
  });

  it('a float column gets none unless the file is known to hold no NaN', () => {
    expect(bounds('float', { ...stats, containsNan: null })).toBeUndefined();
    expect(bounds('float', { ...stats, containsNan: true })).toBeUndefined();
    expect(bounds('float', stats)).toBeDefined();
  });
});
