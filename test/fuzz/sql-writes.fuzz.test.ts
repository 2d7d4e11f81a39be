// Random sequences of SQL writes — INSERT, UPDATE, DELETE (by id ranges and by value), a compaction, some in one
// transaction with tx.sql — against a model of the rows: after every step the table holds the model's rows;
// each step's tableChanges is exactly the rows it inserted, deleted and changed, every row under the id it got
// when inserted (updates and compactions keep it); every snapshot reads as it was; verify finds nothing.
//
// A failure prints fast-check's seed and path: FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run test/fuzz
// replays it (SQL_FUZZ_RUNS sets how many sequences; 30 by default).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { openCatalog } from '../helpers.js';

const RUNS = Number(process.env.SQL_FUZZ_RUNS ?? 30);
const replay = process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED), ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}) };

type Row = { id: number; v: number | null };
type Op =
  | { kind: 'insert'; n: number }
  | { kind: 'update'; lo: number; width: number; set: number | null }
  | { kind: 'delete'; lo: number; width: number }
  | { kind: 'deleteValue'; v: number }
  | { kind: 'compact' }
  | { kind: 'both'; n: number; lo: number; width: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), n: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('update' as const), lo: fc.nat({ max: 30 }), width: fc.integer({ min: 0, max: 8 }), set: fc.option(fc.integer({ min: 0, max: 4 })) }),
  fc.record({ kind: fc.constant('delete' as const), lo: fc.nat({ max: 30 }), width: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ kind: fc.constant('deleteValue' as const), v: fc.integer({ min: 0, max: 4 }) }),
  fc.constant({ kind: 'compact' as const }),
  fc.record({ kind: fc.constant('both' as const), n: fc.integer({ min: 1, max: 3 }), lo: fc.nat({ max: 30 }), width: fc.integer({ min: 0, max: 4 }) }),
);

const num = (x: unknown) => (x === null ? null : Number(x));
const sorted = (rows: Row[]) => [...rows].sort((a, b) => a.id - b.id);
const inRange = (r: Row, lo: number, width: number) => r.id >= lo && r.id < lo + width;

async function rowsOf(c: Catalog, at?: number): Promise<Row[]> {
  const q = `SELECT id, v FROM t${at === undefined ? '' : ` AT (VERSION => ${at})`} ORDER BY id`;
  return (await c.sql(q)).rows.map((r) => ({ id: Number(r.id), v: num(r.v) }));
}

describe('SQL writes against a model of the rows', () => {
  it(`${RUNS} sequences: rows, row-by-row changes and row ids as the model says; every snapshot as it was; verify clean`, { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 7 }), async (ops) => {
        const c = await openCatalog();
        await c.sql('CREATE TABLE t (id BIGINT NOT NULL, v INTEGER)');
        let model: Row[] = [];
        let nextId = 0;
        const rowid = new Map<number, bigint>();
        const history: [number, Row[]][] = [];
        for (const o of ops) {
          const before = model;
          const at = (await c.snapshots()).at(-1)!.id;
          const insert = (n: number) => {
            const rows = Array.from({ length: n }, (_, i) => ({ id: nextId + i, v: (nextId + i) % 5 }));
            nextId += n;
            return { sql: `INSERT INTO t VALUES ${rows.map((r) => `(${r.id}, ${r.v})`).join(', ')}`, rows };
          };
          if (o.kind === 'insert') {
            const { sql, rows } = insert(o.n);
            await c.sql(sql);
            model = [...model, ...rows];
          } else if (o.kind === 'update') {
            await c.sql(`UPDATE t SET v = ${o.set ?? 'NULL'} WHERE id >= ${o.lo} AND id < ${o.lo + o.width}`);
            model = model.map((r) => (inRange(r, o.lo, o.width) ? { ...r, v: o.set } : r));
          } else if (o.kind === 'delete') {
            await c.sql(`DELETE FROM t WHERE id >= ${o.lo} AND id < ${o.lo + o.width}`);
            model = model.filter((r) => !inRange(r, o.lo, o.width));
          } else if (o.kind === 'deleteValue') {
            await c.sql(`DELETE FROM t WHERE v = ${o.v}`);
            model = model.filter((r) => r.v !== o.v);
          } else if (o.kind === 'compact') {
            await c.compact('main', 't');
          } else {
            const { sql, rows } = insert(o.n);
            await c.transaction(async (tx) => {
              await tx.sql(sql);
              await tx.sql(`UPDATE t SET v = v + 10 WHERE id >= ${o.lo} AND id < ${o.lo + o.width}`);
            });
            model = [...model, ...rows].map((r) => (inRange(r, o.lo, o.width) && r.v !== null ? { ...r, v: r.v + 10 } : r));
          }
          const head = (await c.snapshots()).at(-1)!.id;
          expect(await rowsOf(c), JSON.stringify(o)).toEqual(sorted(model));
          history.push([head, sorted(model)]);

          // The step row by row: what it inserted, deleted, changed — nothing at all when nothing changed.
          const changes = head === at ? [] : (await c.tableChanges('main', 't', { from: at + 1, to: head })).rows;
          const was = new Map(before.map((r) => [r.id, r]));
          const now = new Map(model.map((r) => [r.id, r]));
          const expected: [string, number, number | null][] = [];
          for (const r of sorted(model)) {
            const old = was.get(r.id);
            if (old === undefined) expected.push(['insert', r.id, r.v]);
            else if (old.v !== r.v) expected.push(['update_preimage', r.id, old.v], ['update_postimage', r.id, r.v]);
          }
          for (const r of sorted(before)) if (!now.has(r.id)) expected.push(['delete', r.id, r.v]);
          const got = changes.map((r) => [String(r.change_type), Number(r.id), num(r.v)] as [string, number, number | null]);
          const key = (x: [string, number, number | null]) => `${x[1]}:${x[0]}`;
          expect(got.sort((a, b) => (key(a) < key(b) ? -1 : 1)), JSON.stringify(o)).toEqual(expected.sort((a, b) => (key(a) < key(b) ? -1 : 1)));
          // Each row keeps the id it was inserted under.
          for (const r of changes) {
            const id = Number(r.id);
            if (r.change_type === 'insert') rowid.set(id, r.rowid as bigint);
            else expect(r.rowid, `row ${id} after ${JSON.stringify(o)}`).toBe(rowid.get(id));
          }
        }
        for (const [s, rows] of history) expect(await rowsOf(c, s), `snapshot ${s}`).toEqual(rows);
        expect((await c.verify({ files: true })).violations).toEqual([]);
        await c.close();
      }),
      { numRuns: RUNS, ...replay },
    );
  });
});
