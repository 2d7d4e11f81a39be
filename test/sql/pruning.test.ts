// File skipping by column statistics: never a file that holds a row the predicate accepts (a property over
// random files and predicates), and on a real table the files a selective predicate cannot touch are not read,
// with the same answer as a scan of every file.
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ColumnStats } from '../../keys/file-column-stats.js';
import type { ColumnId } from '../../keys/ids.js';
import type { ColumnInfo } from '../../src/read/records.js';
import { skippable, testsOf } from '../../src/sql/pruning.js';
import { openCatalog, tempDir } from '../helpers.js';

const column = (id: number, name: string, type: string): ColumnInfo =>
  ({ id: id as ColumnId, name, type, order: id, nullsAllowed: true, defaultValue: null }) as ColumnInfo;
const COLUMNS = [column(1, 'n', 'int64'), column(2, 's', 'varchar'), column(3, 'd', 'decimal(10,2)')];

const constant = (v: number | string, id = typeof v === 'number' ? 'BIGINT' : 'VARCHAR') => ({ class: 'CONSTANT', value: { type: { id }, is_null: false, value: v } });
const ref = (name: string) => ({ class: 'COLUMN_REF', column_names: [name] });

type Row = { n: bigint | null; s: string | null; d: string | null };
type Pred = { col: 'n' | 's'; op: string; v: number | string | (number | string)[] | null };

/** A WHERE tree as DuckDB serialises it, for a predicate. */
function tree(p: Pred): unknown {
  const ops: Record<string, string> = { '=': 'COMPARE_EQUAL', '<': 'COMPARE_LESSTHAN', '<=': 'COMPARE_LESSTHANOREQUALTO', '>': 'COMPARE_GREATERTHAN', '>=': 'COMPARE_GREATERTHANOREQUALTO' };
  if (p.op === 'null') return { class: 'OPERATOR', type: 'OPERATOR_IS_NULL', children: [ref(p.col)] };
  if (p.op === 'notnull') return { class: 'OPERATOR', type: 'OPERATOR_IS_NOT_NULL', children: [ref(p.col)] };
  if (p.op === 'in') return { class: 'OPERATOR', type: 'COMPARE_IN', children: [ref(p.col), ...(p.v as (number | string)[]).map((x) => constant(x))] };
  return { class: 'COMPARISON', type: ops[p.op], left: ref(p.col), right: constant(p.v as number | string) };
}

/** Whether a row passes the predicate, as SQL evaluates it (NULL never passes a comparison). */
function passes(r: Row, p: Pred): boolean {
  const x = r[p.col];
  if (p.op === 'null') return x === null;
  if (p.op === 'notnull') return x !== null;
  if (x === null) return false;
  const cmp = (v: number | string) =>
    typeof x === 'bigint' ? (x === BigInt(v) ? 0 : x < BigInt(v) ? -1 : 1) : Buffer.compare(Buffer.from(x as string), Buffer.from(String(v)));
  if (p.op === 'in') return (p.v as (number | string)[]).some((v) => cmp(v) === 0);
  const c = cmp(p.v as number | string);
  return { '=': c === 0, '<': c < 0, '<=': c <= 0, '>': c > 0, '>=': c >= 0 }[p.op]!;
}

function statsOf(rows: Row[]): ColumnStats[] {
  const of = (id: number, vals: (bigint | string | null)[]) => {
    const present = vals.filter((v) => v !== null) as (bigint | string)[];
    const sorted = typeof present[0] === 'bigint' ? [...present].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) : [...present].sort((a, b) => Buffer.compare(Buffer.from(a as string), Buffer.from(b as string)));
    return { columnId: id as ColumnId, valueCount: vals.length, nullCount: vals.length - present.length, min: present.length ? String(sorted[0]) : null, max: present.length ? String(sorted.at(-1)) : null, containsNan: null };
  };
  return [of(1, rows.map((r) => r.n)), of(2, rows.map((r) => r.s))];
}

const text = fc.constantFrom('', 'a', 'ab', 'b', 'é', 'z', 'Zürich', '\u{1F600}');
const row = fc.record({ n: fc.option(fc.bigInt({ min: -20n, max: 20n })), s: fc.option(text), d: fc.constant(null) });
const num = fc.integer({ min: -25, max: 25 });
const pred: fc.Arbitrary<Pred> = fc.oneof(
  fc.record({ col: fc.constant('n' as const), op: fc.constantFrom('=', '<', '<=', '>', '>='), v: num }),
  fc.record({ col: fc.constant('s' as const), op: fc.constantFrom('=', '<', '<=', '>', '>='), v: text }),
  fc.record({ col: fc.constant('n' as const), op: fc.constant('in'), v: fc.array(num, { minLength: 1, maxLength: 4 }) }),
  fc.record({ col: fc.constantFrom('n' as const, 's' as const), op: fc.constantFrom('null', 'notnull'), v: fc.constant(null) }),
);

describe('file skipping by statistics', () => {
  it('never skips a file holding a row the predicate accepts (random files, predicates and conjunctions)', () => {
    let skipped = 0;
    fc.assert(
      fc.property(fc.array(fc.array(row, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 6 }), fc.array(pred, { minLength: 1, maxLength: 3 }), (files, preds) => {
        const where = preds.length === 1 ? tree(preds[0]!) : { class: 'CONJUNCTION', type: 'CONJUNCTION_AND', children: preds.map(tree) };
        const skip = skippable(testsOf(where as never, new Set(['t'])), COLUMNS, files.map(statsOf));
        skipped += skip.size;
        files.forEach((rows, i) => {
          if (skip.has(i)) expect(rows.some((r) => preds.every((p) => passes(r, p))), JSON.stringify({ rows, preds }, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))).toBe(false);
        });
      }),
      { numRuns: 2000 },
    );
    expect(skipped).toBeGreaterThan(500); // it does skip: the property is not won by keeping everything
  });

  it('keeps every file for what it does not understand: OR, a cast column, a constant of another kind, a qualifier of another table', () => {
    const stats = [[{ columnId: 1 as ColumnId, valueCount: 1, nullCount: 0, min: '5', max: '5', containsNan: null }]];
    const eq = (left: unknown, right: unknown) => ({ class: 'COMPARISON', type: 'COMPARE_EQUAL', left, right });
    for (const where of [
      { class: 'CONJUNCTION', type: 'CONJUNCTION_OR', children: [eq(ref('n'), constant(1)), eq(ref('n'), constant(2))] },
      eq({ class: 'CAST', child: ref('n'), cast_type: { id: 'VARCHAR' } }, constant('1')),
      eq(ref('n'), constant('1')),
      eq({ class: 'COLUMN_REF', column_names: ['other', 'n'] }, constant(1)),
      eq(ref('n'), { class: 'CONSTANT', value: { type: { id: 'DECIMAL' }, is_null: false, value: 15 } }),
    ]) {
      expect(skippable(testsOf(where as never, new Set(['t'])), COLUMNS, stats).size, JSON.stringify(where)).toBe(0);
    }
    expect(skippable(testsOf(eq(ref('n'), constant(1)) as never, new Set(['t'])), COLUMNS, stats).size).toBe(1);
    // Decimals compare exactly: 2.99 is below 3, and a file whose max is 2.99 cannot hold d >= 3.
    const dec = [[{ columnId: 3 as ColumnId, valueCount: 1, nullCount: 0, min: '2.99', max: '2.99', containsNan: null }]];
    const ge = (v: number) => ({ class: 'COMPARISON', type: 'COMPARE_GREATERTHANOREQUALTO', left: ref('d'), right: constant(v) });
    expect(skippable(testsOf(ge(3) as never, new Set(['t'])), COLUMNS, dec).size).toBe(1);
    expect(skippable(testsOf(ge(2) as never, new Set(['t'])), COLUMNS, dec).size).toBe(0);
  });

  it('a selective predicate on a sorted column reads one file of ten, with the answer of a full scan', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 'events', [{ name: 'id', type: 'int64' }, { name: 'kind', type: 'varchar' }]));
    const dir = await tempDir();
    for (let f = 0; f < 10; f++) {
      const file = path.join(dir, `part-${f}.csv`);
      await writeFile(file, `id,kind\n${Array.from({ length: 500 }, (_, i) => `${f * 500 + i},${i % 3 === 0 ? 'click' : 'view'}`).join('\n')}\n`);
      await c.load('main', 'events', file);
    }
    const q = await c.sql('SELECT count(*) AS n, min(id) AS lo FROM events WHERE id BETWEEN 2600 AND 2700 AND kind = $$click$$');
    expect(q.files).toMatchObject({ listed: 10, skipped: 9 });
    const full = await c.sql('SELECT count(*) AS n, min(id) AS lo FROM events WHERE id + 0 BETWEEN 2600 AND 2700 AND kind = $$click$$');
    expect(full.files).toMatchObject({ listed: 10, skipped: 0 });
    expect(q.rows).toEqual(full.rows);
    // In a join nothing is skipped (the WHERE may belong to the other side); IN and IS NULL skip too.
    expect((await c.sql('SELECT count(*) AS n FROM events a JOIN events b ON a.id = b.id WHERE a.id = 7')).files.skipped).toBe(0);
    expect((await c.sql('SELECT count(*) AS n FROM events WHERE id IN (3, 4999)')).files).toMatchObject({ listed: 10, skipped: 8 });
    expect((await c.sql('SELECT count(*) AS n FROM events WHERE kind IS NULL')).files).toMatchObject({ listed: 10, skipped: 10 });
    expect((await c.sql('SELECT count(*) AS n FROM events WHERE kind IS NULL')).rows).toEqual([{ n: 0n }]);
    // A load past the target size rolls to several files, all in one commit, in input order.
    const big = path.join(dir, 'big.csv');
    await writeFile(big, `id,kind\n${Array.from({ length: 300_000 }, (_, i) => `${10_000 + i},k${i % 7}`).join('\n')}\n`);
    const before = (await c.snapshots()).length;
    const loaded = await c.load('main', 'events', big, { targetFileSize: 100_000 });
    expect(loaded.files.length).toBeGreaterThan(1);
    expect(loaded.rows).toBe(300_000);
    expect((await c.snapshots()).length).toBe(before + 1);
    expect((await c.sql('SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM events WHERE id >= 10000')).rows).toEqual([{ n: 300_000n, lo: 10_000n, hi: 309_999n }]);
    const narrow = await c.sql('SELECT count(*) AS n FROM events WHERE id = 10005');
    expect(narrow.rows).toEqual([{ n: 1n }]);
    expect(narrow.files.skipped).toBe(narrow.files.listed - 1);
  });

  it('a float column bounds its files by min and max only where the file holds no NaN (NaN sorts above every number)', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 'm', [{ name: 'v', type: 'float64' }]));
    const dir = await tempDir();
    for (const [name, values] of [['plain', ['1.5', '2.5']], ['with-nan', ['1.5', 'nan']]] as const) {
      const file = path.join(dir, `${name}.csv`);
      await writeFile(file, `v\n${values.join('\n')}\n`);
      await c.load('main', 'm', file);
    }
    const r = await c.reader();
    const files = await r.dataFiles('main', 'm');
    const stats = await r.columnStats('main', 'm', files);
    await r.close();
    expect(files.map((f) => stats.get(f.id)![0]!.containsNan)).toEqual([false, true]);
    // Above both files' finite values: the plain file is skipped, the one with NaN is read — and its NaN counts.
    const above = await c.sql('SELECT count(*) AS n FROM m WHERE v > 100');
    expect([above.rows, above.files]).toMatchObject([[{ n: 1n }], { listed: 2, skipped: 1 }]);
    expect((await c.sql('SELECT count(*) AS n FROM m WHERE v + 0 > 100')).rows).toEqual(above.rows);
  });

  it('a file a restore brings back keeps its statistics: the same predicate skips the same files', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 'e', [{ name: 'id', type: 'int64' }]));
    const dir = await tempDir();
    for (let f = 0; f < 3; f++) {
      const file = path.join(dir, `e-${f}.csv`);
      await writeFile(file, `id\n${Array.from({ length: 10 }, (_, i) => f * 10 + i).join('\n')}\n`);
      await c.load('main', 'e', file);
    }
    const full = (await c.snapshots()).at(-1)!.id;
    const q = 'SELECT count(*) AS n FROM e WHERE id = 25';
    expect((await c.sql(q)).files).toMatchObject({ listed: 3, skipped: 2 });
    const r = await c.reader();
    const files = await r.dataFiles('main', 'e');
    await r.close();
    await c.transaction(async (tx) => {
      for (const f of files) await tx.removeDataFile('main', 'e', f.id);
    });
    await c.transaction((tx) => tx.restoreTable('main', 'e', full));
    const after = await c.sql(q);
    expect([after.rows, after.files]).toMatchObject([[{ n: 1n }], { listed: 3, skipped: 2 }]);
    expect((await c.verify()).violations).toEqual([]);
  });
});
