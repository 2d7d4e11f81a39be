// A file's top-level columns read from its footer here, held against what DuckDB itself reads from the same
// files: the names and nesting DESCRIBE gives, the field ids the files were written with, and a type key that
// is equal only for columns DuckDB reads as one type (files of equal keys share one read_parquet).
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { footerColumns, footerSchema } from '../../src/sql/parquet-footer.js';
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

  it('gives nothing for bytes that end in no footer', async () => {
    const good = await readFile(await written('good', ['id BIGINT', 's VARCHAR'], ["(1, 'a')"], [1, 2]));
    const footerStart = good.length - 8 - good.readUInt32LE(good.length - 8);
    const tooLong = Buffer.from(good);
    tooLong.writeUInt32LE(good.length, good.length - 8);
    for (const [name, bytes] of [
      ['empty', new Uint8Array(0)],
      ['magic-only', Buffer.from('PAR1PAR1')],
      ['no-magic', good.subarray(0, good.length - 1)],
      ['length-past-the-start', tooLong],
      ['zeros', Buffer.concat([good.subarray(0, footerStart), Buffer.alloc(good.length - footerStart - 8), good.subarray(good.length - 8)])],
    ] as const) {
      const local = path.join(dir, `${name}.parquet`);
      await writeFile(local, bytes);
      expect([name, footerColumns(local)]).toEqual([name, undefined]);
    }
    expect(footerColumns(path.join(dir, 'absent.parquet'))).toBeUndefined();
  });

  it('keeps a name as its bytes say, a leading byte-order mark too, as DuckDB does', async () => {
    const good = await readFile(await written('bom', ['zq BIGINT', 'b BIGINT'], ['(7, 8)'], [1, 2]));
    const length = good.readUInt32LE(good.length - 8);
    const start = good.length - 8 - length;
    // The name's field header (field 4 after field 3: delta 1, binary), its length, "zq".
    const at = good.indexOf(Buffer.from([0x18, 0x02, 0x7a, 0x71]), start);
    expect(at).toBeGreaterThan(start);
    const tail = Buffer.alloc(8);
    tail.writeUInt32LE(length + 3, 0);
    tail.write('PAR1', 4);
    const local = path.join(dir, 'bom-named.parquet');
    await writeFile(local, Buffer.concat([good.subarray(0, at), Buffer.from([0x18, 0x05, 0xef, 0xbb, 0xbf, 0x7a, 0x71]), good.subarray(at + 4, good.length - 8), tail]));
    const [first] = footerColumns(local)!;
    expect(first!.name).toBe('\ufeffzq');
    // DuckDB reads the column by that name, and by no other.
    const c = await db.connect();
    try {
      expect((await c.runAndReadAll(`SELECT "\ufeffzq" AS v FROM read_parquet('${local}')`)).getRowObjectsJS()).toEqual([{ v: 7n }]);
      await expect(c.runAndReadAll(`SELECT "zq" FROM read_parquet('${local}')`)).rejects.toThrow(/zq/);
    } finally {
      c.closeSync();
    }
  });

  it('reads every single-bit flip of a footer as DuckDB does, or leaves it to DuckDB: never a field id, name or type it would not see', { timeout: 120_000 }, async () => {
    const columns = ['id BIGINT', 's VARCHAR', 'd DECIMAL(18,4)', 'dt DATE', 'u UINTEGER', 'st STRUCT(a INTEGER)'];
    const local = await written('flipped', columns, ["(1, 'x', 1.5, DATE '2020-01-02', 7, {'a': 1})"], [1, 2, 3, 4, 5, 6]);
    const good = await readFile(local);
    const footerStart = good.length - 8 - good.readUInt32LE(good.length - 8);
    const before = footerSchema(local)!;
    const c = await db.connect();
    const duck = async (file: string) => {
      try {
        const rows = (await c.runAndReadAll(`SELECT name, field_id, num_children, concat_ws('/', type, type_length, repetition_type, converted_type, logical_type, scale, precision) AS type FROM parquet_schema('${file}')`)).getRowObjectsJS();
        return rows.map((r) => ({ name: String(r.name), fieldId: r.field_id === null ? null : Number(r.field_id), children: Number(r.num_children ?? 0), type: String(r.type) }));
      } catch {
        return undefined;
      }
    };
    const goodDuck = (await duck(local))!;
    const outcomes = new Map<string, number>();
    try {
      for (let at = footerStart; at < good.length - 8; at++) {
        for (let bit = 0; bit < 8; bit++) {
          const bad = Buffer.from(good);
          bad[at] = bad[at]! ^ (1 << bit);
          // A name of its own: DuckDB may keep a file's metadata by its path and time.
          const file = path.join(dir, `flip-${at}-${bit}.parquet`);
          await writeFile(file, bad);
          const ours = footerSchema(file);
          const theirs = await duck(file);
          const outcome = ours === undefined ? 'left to DuckDB' : theirs === undefined ? 'DuckDB refuses' : 'both read';
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
          if (ours === undefined) continue;
          if (theirs === undefined) {
            // Read here but not by DuckDB: then DuckDB's read of it fails too, as the statement's would.
            await expect(c.runAndReadAll(`SELECT * FROM read_parquet('${file}')`), `flip of bit ${bit} at footer byte ${at - footerStart}`).rejects.toThrow();
            continue;
          }
          const where = `flip of bit ${bit} at footer byte ${at - footerStart}`;
          expect(ours.map((e) => [e.name, e.fieldId, e.children]), where).toEqual(theirs.map((e) => [e.name, e.fieldId, e.children]));
          // An element whose key is unchanged is one DuckDB reads as before.
          for (const [i, e] of ours.entries()) if (i < before.length && e.type === before[i]!.type) expect(theirs[i]!.type, where).toEqual(goodDuck[i]!.type);
        }
      }
    } finally {
      c.closeSync();
    }
    expect(outcomes.get('both read')).toBeGreaterThan(100);
    expect(outcomes.get('left to DuckDB')).toBeGreaterThan(100);
  });
});
