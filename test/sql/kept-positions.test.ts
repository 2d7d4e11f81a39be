// Delete files' positions kept in the executor's memory (decision 0052): what is kept is each file's positions
// exactly, under a slot of its own; what is held is never evicted; the budget bounds what is kept otherwise;
// a file that cannot be read is not kept and not tried again; two statements asking for one file at once load
// it once. Real DuckDB (the catalog's own engine) over real Parquet delete files; and through catalog.sql, a
// statement after the first reads no delete file again, with the same answers.
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Catalog } from '../../src/index.js';
import { Engine } from '../../src/sql/engine.js';
import { DeletePositionChecks } from '../../src/sql/delete-positions.js';
import { type KeptFile, KeptPositions } from '../../src/sql/kept-positions.js';
import { tempDir } from '../helpers.js';

let dir: string;
let engine: Engine;
/** Each delete file by name: its positions, written by a DuckDB of the test's own. */
const written = new Map<string, number[]>();

/** A delete file of `positions` (of `type`), with `extra` columns (SQL expressions by name) beside file_path and pos. */
async function write(name: string, positions: number[], type = 'BIGINT', extra: Record<string, string> = {}): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const values = positions.map((p) => `('lake/data.parquet', ${p}::${type})`).join(', ');
  const more = Object.entries(extra).map(([n, v]) => `, ${v} AS ${n}`).join('');
  await c.run(`COPY (SELECT *${more} FROM (VALUES ${values}) AS v(file_path, pos)) TO '${path.join(dir, name)}' (FORMAT parquet)`);
  c.closeSync();
  db.closeSync();
  written.set(name, positions);
}

const file = (name: string): KeptFile => ({ identity: `${name}/id`, local: path.join(dir, name), deleteCount: written.get(name)!.length });

/** What the table holds under `slot`, sorted. */
async function rowsOf(kept: KeptPositions, slot: number): Promise<number[]> {
  return engine.connections.withConnection(async (c) => {
    const r = await c.runAndReadAll(`SELECT pos FROM ${kept.table} WHERE slot = ${slot} ORDER BY pos`);
    return (r.getRowObjectsJS() as { pos: bigint }[]).map((x) => Number(x.pos));
  });
}

async function tableSize(kept: KeptPositions): Promise<number> {
  return engine.connections.withConnection(async (c) => Number((await c.runAndReadAll(`SELECT count(*) AS n FROM ${kept.table}`)).getRowObjectsJS()[0]!.n));
}

// Files and engine afresh for each test: tempDir's directories go after each.
beforeEach(async () => {
  dir = await tempDir();
  engine = new Engine({ lakeDirs: [dir], scratchDir: path.join(dir, 'scratch'), memoryLimit: 64 * 2 ** 20 });
  await write('a.parquet', [0, 4, 9]);
  await write('b.parquet', [1, 2, 3, 5, 8]);
  await write('c.parquet', [7, 11, 13, 17]);
  await write('d.parquet', [0, 1, 2, 3, 4, 5, 6, 7]);
  await write('big.parquet', Array.from({ length: 11 }, (_, i) => i));
  await writeFile(path.join(dir, 'not-parquet.parquet'), 'not a Parquet file at all');
  written.set('not-parquet.parquet', [1, 2]);
}, 60_000);

afterEach(() => engine.close());

describe('positions kept in memory', () => {
  it("keeps each file's positions exactly, under a slot of its own, and a second hold loads nothing", async () => {
    const kept = new KeptPositions(engine.connections, 100);
    const first = await kept.hold([file('a.parquet'), file('b.parquet')]);
    const [a, b] = [first.slots.get('a.parquet/id')!, first.slots.get('b.parquet/id')!];
    expect(a).not.toBe(b);
    expect(await rowsOf(kept, a)).toEqual(written.get('a.parquet'));
    expect(await rowsOf(kept, b)).toEqual(written.get('b.parquet'));
    first.release();
    const loads = vi.spyOn(kept as unknown as { load: () => Promise<void> }, 'load');
    const again = await kept.hold([file('b.parquet'), file('a.parquet')]);
    expect(loads).not.toHaveBeenCalled();
    expect([...again.slots]).toEqual([
      ['b.parquet/id', b],
      ['a.parquet/id', a],
    ]);
    expect(kept.positions).toBe(8);
    expect(await tableSize(kept)).toBe(8);
  });

  it('evicts the least recently used file no statement holds, never a held one; past the budget a file is not kept', async () => {
    const kept = new KeptPositions(engine.connections, 10);
    (await kept.hold([file('a.parquet')])).release(); // 3
    (await kept.hold([file('b.parquet')])).release(); // 5: 8 kept
    (await kept.hold([file('a.parquet')])).release(); // a used last: b is the least recently used
    const c = await kept.hold([file('c.parquet')]); // 4 more: b goes
    expect(c.slots.has('c.parquet/id')).toBe(true);
    expect(kept.positions).toBe(7);
    // c is held: d (8) would need it gone, and a (3) alone is not enough, so nothing is evicted and d is not kept.
    const d = await kept.hold([file('d.parquet')]);
    expect(d.slots.size).toBe(0);
    expect(kept.positions).toBe(7);
    const held = await kept.hold([file('a.parquet'), file('c.parquet')]);
    expect(held.slots.size).toBe(2);
    expect(await rowsOf(kept, held.slots.get('c.parquet/id')!)).toEqual(written.get('c.parquet'));
    held.release();
    c.release();
    // Nothing held: d is kept now, the others evicted, and their rows gone from the table with the load.
    const later = await kept.hold([file('d.parquet')]);
    expect(later.slots.has('d.parquet/id')).toBe(true);
    expect(kept.positions).toBe(8);
    expect(await tableSize(kept)).toBe(8);
    // One file larger than the whole budget is never kept.
    expect((await kept.hold([file('big.parquet')])).slots.size).toBe(0);
  });

  it('a file DuckDB cannot read is not kept, and not tried again; the others of its batch are', async () => {
    const kept = new KeptPositions(engine.connections, 100);
    const h = await kept.hold([file('not-parquet.parquet'), file('a.parquet')]);
    expect([...h.slots.keys()]).toEqual(['a.parquet/id']);
    const loads = vi.spyOn(kept as unknown as { load: () => Promise<void> }, 'load');
    expect((await kept.hold([file('not-parquet.parquet')])).slots.size).toBe(0);
    expect(loads).not.toHaveBeenCalled();
    expect(kept.positions).toBe(3);
  });

  it('two statements asking for one file at once load it once, and both get its slot', async () => {
    const kept = new KeptPositions(engine.connections, 100);
    const [x, y] = await Promise.all([kept.hold([file('b.parquet')]), kept.hold([file('b.parquet')])]);
    expect(x.slots.get('b.parquet/id')).toBe(y.slots.get('b.parquet/id'));
    expect(await tableSize(kept)).toBe(5);
  });

  it('a forgotten file (its check failed) is loaded afresh if asked for again; its rows stay while a statement holds them', async () => {
    const kept = new KeptPositions(engine.connections, 100);
    const h = await kept.hold([file('c.parquet')]);
    const old = h.slots.get('c.parquet/id')!;
    kept.forget('c.parquet/id');
    expect(kept.positions).toBe(0);
    // Held still: a load meanwhile (another statement's) leaves its rows where the holder reads them.
    const again = await kept.hold([file('c.parquet')]);
    expect(again.slots.get('c.parquet/id')).not.toBe(old);
    expect(await rowsOf(kept, old)).toEqual(written.get('c.parquet'));
    expect(await rowsOf(kept, again.slots.get('c.parquet/id')!)).toEqual(written.get('c.parquet'));
    h.release();
    (await kept.hold([file('a.parquet')])).release(); // the next load deletes them
    expect(await rowsOf(kept, old)).toEqual([]);
    expect(await tableSize(kept)).toBe(written.get('c.parquet')!.length + written.get('a.parquet')!.length);
  });
});

describe('what a review found', () => {
  it('a load that fails for a reason not its files\' own (here the table, once) refuses none of them for good', async () => {
    const kept = new KeptPositions(engine.connections, 100);
    const create = vi.spyOn(kept as unknown as { create: () => Promise<void> }, 'create').mockRejectedValueOnce(new Error('out of memory, once'));
    const first = await kept.hold([file('a.parquet'), file('b.parquet')]);
    expect(first.slots.size).toBe(0);
    first.release();
    create.mockRestore();
    const again = await kept.hold([file('a.parquet'), file('b.parquet')]);
    expect(again.slots.size).toBe(2);
    expect(await rowsOf(kept, again.slots.get('b.parquet/id')!)).toEqual(written.get('b.parquet'));
  });

  it('two loads at once, each deleting what was evicted before it: both keep their files', async () => {
    await write('e.parquet', [20, 21, 22, 23, 24]);
    const kept = new KeptPositions(engine.connections, 10);
    (await kept.hold([file('a.parquet')])).release();
    (await kept.hold([file('b.parquet')])).release(); // 8 kept, nothing held
    // c (4) evicts a, e (5) evicts b, before either load begins: each load is handed the rows it deletes.
    const [c, e] = await Promise.all([kept.hold([file('c.parquet')]), kept.hold([file('e.parquet')])]);
    expect(c.slots.has('c.parquet/id')).toBe(true);
    expect(e.slots.has('e.parquet/id')).toBe(true);
    expect(await rowsOf(kept, c.slots.get('c.parquet/id')!)).toEqual(written.get('c.parquet'));
    expect(await rowsOf(kept, e.slots.get('e.parquet/id')!)).toEqual(written.get('e.parquet'));
    expect(await tableSize(kept)).toBe(9);
  });

  it("a delete file's own file_index or filename column does not move its positions to another file's slot", async () => {
    await write('own-index-1.parquet', [2, 3], 'BIGINT', { file_index: '1::BIGINT', filename: "'x'" });
    await write('own-index-0.parquet', [5, 7], 'BIGINT', { file_index: '0::BIGINT', filename: "'y'" });
    const kept = new KeptPositions(engine.connections, 100);
    const h = await kept.hold([file('own-index-1.parquet'), file('own-index-0.parquet')]);
    expect(await rowsOf(kept, h.slots.get('own-index-1.parquet/id')!)).toEqual([2, 3]);
    expect(await rowsOf(kept, h.slots.get('own-index-0.parquet/id')!)).toEqual([5, 7]);
  });

  it('positions that are not whole numbers are a problem, kept or read from their Parquet, never rounded', async () => {
    await write('fractions.parquet', [0.4, 1.4, 2.4], 'DOUBLE');
    await write('whole-doubles.parquet', [0, 1, 2], 'DOUBLE');
    for (const budget of [100, 0]) {
      const checks = new DeletePositionChecks(engine.connections, new KeptPositions(engine.connections, budget));
      const asked = ['fractions.parquet', 'whole-doubles.parquet'].map((n) => ({ ...file(n), recordCount: 10 }));
      const [fractions, whole] = await checks.problems(asked, true);
      expect(fractions, `budget ${budget}`).toMatch(/not a whole number/);
      expect(whole, `budget ${budget}`).toBeUndefined();
      const [alone] = await new DeletePositionChecks(engine.connections, new KeptPositions(engine.connections, budget)).problems([asked[0]!], false);
      expect(alone).toMatch(/not a whole number/);
    }
  });
});

describe('through catalog.sql', () => {
  it('a statement after the first reads no delete file again, and answers as DuckDB applying the delete files by hand', async () => {
    const lake = await tempDir();
    const c = await Catalog.open({ dir: lake });
    try {
      await c.sql('CREATE TABLE t (id BIGINT, v DOUBLE)');
      for (let f = 0; f < 4; f++) await c.sql(`INSERT INTO t SELECT i, i / 4 FROM range(${f * 1000}, ${(f + 1) * 1000}) r(i)`);
      await c.sql('DELETE FROM t WHERE id % 10 = 3');
      await c.sql('DELETE FROM t WHERE id % 10 = 6 AND id < 2500');
      const r = await c.reader();
      const [data, deletes] = [await r.dataFiles('main', 't'), await r.deleteFiles('main', 't')];
      await r.close();
      expect(deletes.length).toBe(4);
      // The model: DuckDB of the test's own, the deletes joined by the data file each belongs to.
      const db = await DuckDBInstance.create(':memory:');
      const m = await db.connect();
      const local = (p: string) => `'${c.dataFileLocation(p)}'`;
      const pairs = deletes.map((d) => `(${local(d.path)}, ${local(data.find((f) => f.id === d.dataFileId)!.path)})`).join(', ');
      const model = await m.runAndReadAll(
        `SELECT count(*)::INT AS n, sum(v) AS s FROM read_parquet([${data.map((f) => local(f.path)).join(', ')}], filename = true, file_row_number = true) d ` +
          `WHERE NOT EXISTS (SELECT 1 FROM (VALUES ${pairs}) p(del, dat) JOIN read_parquet([${deletes.map((d) => local(d.path)).join(', ')}], filename = true) x ON x.filename = p.del ` +
          'WHERE p.dat = d.filename AND x.pos = d.file_row_number)',
      );
      const want = model.getRowObjectsJS()[0] as { n: number; s: number };
      m.closeSync();
      db.closeSync();
      expect(want.n).toBe(4000 - 400 - 250);
      await c.close();

      const original = DuckDBConnection.prototype.runAndReadAll;
      const loads = vi.spyOn(KeptPositions.prototype as unknown as { load: () => Promise<void> }, 'load');
      const fresh = await Catalog.open({ dir: lake });
      try {
        const q = 'SELECT count(*)::INT AS n, sum(v) AS s FROM t';
        expect((await fresh.sql(q)).rows).toEqual([{ n: want.n, s: want.s }]);
        expect(loads).toHaveBeenCalledTimes(1);
        // What DuckDB is asked to run from now on names no delete file: their positions come from memory.
        const texts: string[] = [];
        const runs = vi.spyOn(DuckDBConnection.prototype, 'runAndReadAll').mockImplementation(function (this: DuckDBConnection, sql: string, ...rest: unknown[]) {
          texts.push(sql);
          return original.call(this, sql, ...(rest as []));
        } as never);
        expect((await fresh.sql(q)).rows).toEqual([{ n: want.n, s: want.s }]);
        expect((await fresh.sql('SELECT id FROM t WHERE id % 10 IN (3, 6) ORDER BY id LIMIT 3')).rows).toEqual([{ id: 2506n }, { id: 2516n }, { id: 2526n }]);
        expect(loads).toHaveBeenCalledTimes(1);
        runs.mockRestore();
        expect(texts.length).toBeGreaterThan(0);
        for (const d of deletes) expect(texts.join('\n')).not.toContain(d.path);
      } finally {
        loads.mockRestore();
        await fresh.close();
      }
    } finally {
      await c.close();
    }
  });
});
