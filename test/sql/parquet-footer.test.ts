// A file's top-level columns read from its footer here, held against what DuckDB itself reads from the same
// files: the names and nesting DESCRIBE gives, the field ids the files were written with, and a type key that
// is equal only for columns DuckDB reads as one type (files of equal keys share one read_parquet).
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { footerColumns } from '../../src/sql/parquet-footer.js';
import { tempDir } from '../helpers.js';
import { EVERY_TYPE_COLUMNS, EVERY_TYPE_ROWS } from '../support/every-type.js';
import { propertyRuns } from '../support/property-runs.js';

let db: DuckDBInstance;
let dir: string;

beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
  dir = await tempDir();
});
afterAll(() => db.closeSync());

/** Writes `columns` (name TYPE) with `rows` to a new file, with the field ids given (none: written without). */
async function written(name: string, columns: readonly string[], rows: readonly string[], fieldIds?: readonly number[]): Promise<string> {
  const local = path.join(dir, `${name}.parquet`);
  const c = await db.connect();
  try {
    await c.run(`CREATE OR REPLACE TEMP TABLE src (${columns.join(', ')})`);
    if (rows.length > 0) await c.run(`INSERT INTO src VALUES ${rows.join(', ')}`);
    const ids = fieldIds === undefined ? '' : `, FIELD_IDS {${columns.map((col, i) => `${col.split(' ')[0]}: ${fieldIds[i]}`).join(', ')}}`;
    await c.run(`COPY src TO '${local}' (FORMAT parquet${ids})`);
  } finally {
    c.closeSync();
  }
  return local;
}

/** The columns as DuckDB reads the file: names and types, in order. */
async function described(local: string): Promise<{ name: string; type: string }[]> {
  const c = await db.connect();
  try {
    const rows = (await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${local}')`)).getRowObjectsJS() as { column_name: string; column_type: string }[];
    return rows.map((r) => ({ name: r.column_name, type: r.column_type }));
  } finally {
    c.closeSync();
  }
}

const isNested = (duckType: string) => /^(STRUCT|MAP|UNION)\(|\[\d*\]$/.test(duckType);

describe('footerColumns', () => {
  it('gives every column of every type its name, field id and nesting as DuckDB reads them, and one type key only to columns DuckDB reads as one type', async () => {
    const ids = EVERY_TYPE_COLUMNS.map((_, i) => 100 + i * 7);
    const local = await written('every', EVERY_TYPE_COLUMNS, EVERY_TYPE_ROWS, ids);
    const got = footerColumns(local)!;
    const duck = await described(local);
    expect(got.map((c) => c.name)).toEqual(duck.map((d) => d.name));
    expect(got.map((c) => c.fieldId)).toEqual(ids);
    expect(got.map((c) => c.nested)).toEqual(duck.map((d) => isNested(d.type)));
    expect(got.filter((c) => c.nested).length).toBeGreaterThan(0);
    for (const [i, a] of got.entries()) {
      for (const [j, b] of got.entries()) if (a.type === b.type) expect([i, duck[i]!.type]).toEqual([i, duck[j]!.type]);
    }

    // Written again, alone and without field ids: the same keys, and no ids.
    const again = footerColumns(await written('again', EVERY_TYPE_COLUMNS, EVERY_TYPE_ROWS))!;
    expect(again.map((c) => c.type)).toEqual(got.map((c) => c.type));
    expect(again.every((c) => c.fieldId === null)).toBe(true);
  });

  it('tells apart what one read_parquet would read alike: widths, decimal scales, timestamp units', async () => {
    const pairs = [
      ['INTEGER', 'BIGINT'],
      ['DECIMAL(18,3)', 'DECIMAL(18,4)'],
      ['TIMESTAMP', 'TIMESTAMP_NS'],
      ['VARCHAR', 'BLOB'],
    ];
    // (A nested column's key is its group's alone: files with one are read by field id, never by these keys.)
    for (const [n, [a, b]] of pairs.entries()) {
      const [fa, fb, fa2] = [
        footerColumns(await written(`a${n}`, [`x ${a}`], [], [1]))!,
        footerColumns(await written(`b${n}`, [`x ${b}`], [], [1]))!,
        footerColumns(await written(`c${n}`, [`x ${a}`], ['(NULL)'], [1]))!,
      ];
      expect(fa[0]!.type).not.toEqual(fb[0]!.type);
      expect(fa2[0]!.type).toEqual(fa[0]!.type);
    }
  });

  it('follows random flat and nested schemas, with and without field ids', async () => {
    const leaf = fc.constantFrom('BIGINT', 'INTEGER', 'DOUBLE', 'VARCHAR', 'BOOLEAN', 'DATE', 'DECIMAL(9,2)');
    const type = fc.oneof(
      { weight: 3, arbitrary: leaf },
      leaf.map((t) => `${t}[]`),
      fc.array(leaf, { minLength: 1, maxLength: 3 }).map((ts) => `STRUCT(${ts.map((t, i) => `f${i} ${t}`).join(', ')})`),
      leaf.map((t) => `MAP(VARCHAR, ${t})`),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(type, { minLength: 1, maxLength: 12 }), fc.boolean(), async (types, withIds) => {
        const columns = types.map((t, i) => `c${i} ${t}`);
        const ids = withIds ? types.map((_, i) => 1 + i * 3) : undefined;
        const local = await written(`r${n++}`, columns, []);
        const withFieldIds = ids === undefined ? local : await written(`r${n++}`, columns, [], ids);
        const got = footerColumns(withFieldIds)!;
        const duck = await described(withFieldIds);
        expect(got.map((c) => [c.name, c.fieldId, c.nested])).toEqual(duck.map((d, i) => [d.name, ids?.[i] ?? null, isNested(d.type)]));
        expect(footerColumns(local)!.map((c) => c.type)).toEqual(got.map((c) => c.type));
      }),
      { numRuns: propertyRuns(25) },
    );
  });

  it('gives nothing for bytes that end in no footer, and never throws on a cut or flipped one', async () => {
    const good = await (await import('node:fs/promises')).readFile(await written('good', ['id BIGINT', 's VARCHAR', 'st STRUCT(a INTEGER)'], ["(1, 'a', {'a': 1})"], [1, 2, 3]));
    expect(footerColumns(path.join(dir, 'good.parquet'))).toHaveLength(3);
    const footerStart = good.length - 8 - good.readUInt32LE(good.length - 8);
    const write = async (name: string, bytes: Uint8Array) => {
      const local = path.join(dir, name);
      await writeFile(local, bytes);
      return local;
    };
    const tooLong = Buffer.from(good);
    tooLong.writeUInt32LE(good.length, good.length - 8);
    for (const [name, bytes] of [
      ['empty', new Uint8Array(0)],
      ['magic-only', Buffer.from('PAR1PAR1')],
      ['no-magic', good.subarray(0, good.length - 1)],
      ['length-past-the-start', tooLong],
      ['zeros', Buffer.concat([good.subarray(0, footerStart), Buffer.alloc(good.length - footerStart - 8), good.subarray(good.length - 8)])],
    ] as const) {
      expect([name, footerColumns(await write(`${name}.parquet`, bytes))]).toEqual([name, undefined]);
    }
    expect(footerColumns(path.join(dir, 'absent.parquet'))).toBeUndefined();

    await fc.assert(
      fc.asyncProperty(fc.integer({ min: footerStart, max: good.length - 1 }), fc.integer({ min: 0, max: 7 }), fc.boolean(), async (at, bit, cut) => {
        const bad = cut ? Buffer.concat([good.subarray(0, at), good.subarray(good.length - 8)]) : Buffer.from(good);
        if (!cut) bad[at] = bad[at]! ^ (1 << bit);
        const got = footerColumns(await write('bad.parquet', bad));
        expect(got === undefined || Array.isArray(got)).toBe(true);
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});
