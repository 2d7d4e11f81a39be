// tableChanges against a model kept as plain DuckDB tables (test/support/table-model.ts): every statement is
// run on a plain table too, the table is copied with its row ids from its files at every snapshot, and the
// expected changes are two copies compared by row id — across every kind of commit: INSERT, DELETE (of some
// rows, of every row of a file), UPDATE, compaction, a restore, a drop and a catalog restore.
import fc from 'fast-check';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { openCatalog, tempDir } from '../helpers.js';
import { runCli } from '../support/run-cli.js';
import { type ModelRow, TableModel } from '../support/table-model.js';

const RUNS = Number(process.env.HISTORY_FUZZ_RUNS ?? 30);
const replay = process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED), ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}) };

/** A catalog with table main.t (id, v) and its model; each step commits through the catalog and the model alike. */
async function history() {
  const dir = await tempDir();
  const c = await openCatalog({ dir });
  await c.sql('CREATE TABLE t (id BIGINT, v VARCHAR)');
  const model = await TableModel.open(c, path.join(dir, 'store'), 'main', 't');
  const head = async () => (await c.snapshots()).at(-1)!.id;
  /** After a commit: the plain table kept, the table copied, and the copy holds what the plain table holds. */
  const committed = async () => {
    const s = await head();
    await model.keep(s);
    await model.copy(s);
    expect(await model.copied(s), `snapshot ${s}`).toEqual(await model.kept(s));
    return s;
  };
  return {
    c,
    dir,
    model,
    head,
    sql: async (text: string) => {
      await c.sql(text);
      await model.apply(text);
      return committed();
    },
    /** A statement committed as maintenance (as a compaction is): its flag does not hide what it changed. */
    maintenance: async (text: string) => {
      await c.transaction((tx) => tx.sql(text).then(() => undefined), { maintenance: true });
      await model.apply(text);
      return committed();
    },
    compact: async () => {
      await c.compact('main', 't');
      return committed();
    },
    restore: async (s: number) => {
      await c.restoreTable('main', 't', s);
      await model.restore(s);
      return committed();
    },
    drop: async () => {
      await c.sql('DROP TABLE t');
      await model.apply('DELETE FROM main.t');
      return committed();
    },
    restoreCatalog: async (s: number) => {
      await c.restoreCatalog(s);
      await model.restore(s);
      return committed();
    },
    close: () => model.close(),
  };
}

const changes = async (c: Catalog, from: number, to: number): Promise<ModelRow[]> => (await c.tableChanges('main', 't', { from, to })).rows;

describe('tableChanges across every kind of commit, against a model of plain DuckDB tables', () => {
  it('rows a restore brings back are inserts at the restore snapshot', async () => {
    const h = await history();
    const inserted = await h.sql(`INSERT INTO main.t VALUES (1, 'a'), (2, 'b'), (3, 'c')`);
    const deleted = await h.sql('DELETE FROM main.t WHERE id = 2');
    const restored = await h.restore(inserted);
    const got = await changes(h.c, deleted, restored);
    expect(got).toEqual(await h.model.changes(deleted, restored));
    expect(got.map((r) => [r.snapshot_id, r.change_type, r.id])).toEqual([
      [BigInt(deleted), 'delete', 2n],
      [BigInt(restored), 'insert', 2n],
    ]);
    h.close();
    await h.c.close();
    const cli = await runCli('changes', 'main.t', String(deleted), String(restored), '--json', '--dir', h.dir);
    expect(cli.code, cli.stderr).toBe(0);
    expect((JSON.parse(cli.stdout) as { change_type: string; id: unknown }[]).map((r) => [r.change_type, Number(r.id)])).toEqual([['delete', 2], ['insert', 2]]);
  });

  it('several files, deletes, an UPDATE, a compaction, a restore, a delete of every row of a file, a drop and a catalog restore: every range as the model says, and its rows add up to what the table gained', { timeout: 120_000 }, async () => {
    const h = await history();
    const counts = new Map<number, number>([[await h.head(), 0]]);
    const step = async (s: number) => void counts.set(s, (await h.model.copied(s)).length);
    await step(await h.sql(`INSERT INTO main.t SELECT i, 'a' || i FROM range(0, 300) r(i)`));
    await step(await h.sql(`INSERT INTO main.t SELECT i, 'b' || i FROM range(300, 600) r(i)`));
    const beforeDeletes = await h.head();
    await step(await h.sql('DELETE FROM main.t WHERE id % 7 = 0'));
    await step(await h.sql(`UPDATE main.t SET v = 'u' || id WHERE id % 5 = 0`));
    const beforeCompaction = await h.head();
    await step(await h.compact());
    await step(await h.sql(`INSERT INTO main.t SELECT i, 'c' || i FROM range(600, 700) r(i)`));
    await step(await h.sql('DELETE FROM main.t WHERE id >= 600')); // every row of a file: the file ends
    await step(await h.restore(beforeCompaction));
    await step(await h.sql(`UPDATE main.t SET v = NULL WHERE id % 11 = 0`));
    await step(await h.restore(beforeDeletes));
    const beforeDrop = await h.head();
    await step(await h.drop());
    await step(await h.restoreCatalog(beforeDrop));
    await step(await h.sql(`INSERT INTO main.t SELECT i, 'd' || i FROM range(700, 720) r(i)`));
    const head = await h.head();
    const live = (s: number) => counts.get(s) !== undefined && s !== beforeDrop + 1; // main.t exists at s
    for (let from = 2; from <= head; from++) {
      for (let to = from; to <= head; to++) {
        if (!live(to)) continue;
        const got = await changes(h.c, from, to);
        expect(got, `changes ${from}..${to}`).toEqual(await h.model.changes(from, to));
        const net = got.filter((r) => r.change_type === 'insert').length - got.filter((r) => r.change_type === 'delete').length;
        expect(net, `changes ${from}..${to} add up`).toBe(counts.get(to)! - counts.get(from - 1)!);
      }
    }
    h.close();
  });

  it('a long history of many small files reads in a small memory limit: every file is scanned once, whatever its events', { timeout: 120_000 }, async () => {
    // One Parquet scan per event took ~1 MiB of DuckDB's memory each: 180 of them ran out at 192 MiB.
    const c = await openCatalog({ sql: { memoryLimit: 64 * 2 ** 20 } });
    await c.sql('CREATE TABLE t (id BIGINT, v VARCHAR)');
    for (let f = 0; f < 120; f++) await c.sql(`INSERT INTO t SELECT i, 'v' || i FROM range(${f * 10}, ${(f + 1) * 10}) r(i)`);
    await c.sql('DELETE FROM t WHERE id % 7 = 0');
    await c.sql(`UPDATE t SET v = 'changed' WHERE id % 10 = 3`);
    const head = (await c.snapshots()).at(-1)!.id;
    const kinds = new Map<string, number>();
    for (const r of (await c.tableChanges('main', 't', { from: 1, to: head })).rows) kinds.set(String(r.change_type), (kinds.get(String(r.change_type)) ?? 0) + 1);
    const deleted = Math.ceil(1200 / 7);
    const updated = [...Array(1200).keys()].filter((i) => i % 10 === 3 && i % 7 !== 0).length;
    expect(Object.fromEntries(kinds)).toEqual({ insert: 1200, delete: deleted, update_preimage: updated, update_postimage: updated });
  });

  it('an UPDATE of a column dropped since is still an update; a row is shown as it was at its snapshot, a column it lacked then as its default', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id BIGINT, v VARCHAR, w VARCHAR)');
    await c.sql(`INSERT INTO t VALUES (1, 'a', 'x')`);
    const updated = (await c.sql(`UPDATE t SET w = 'y' WHERE id = 1`)).snapshot!;
    await c.sql('ALTER TABLE t DROP COLUMN w');
    const added = (await c.sql(`ALTER TABLE t ADD COLUMN z INTEGER DEFAULT 7`)).snapshot!;
    await c.sql(`INSERT INTO t VALUES (2, 'b', 8)`);
    const head = (await c.snapshots()).at(-1)!.id;
    const rows = (await c.tableChanges('main', 't', { from: 1, to: head })).rows.map((r) => [r.snapshot_id, r.change_type, r.id, r.v, r.z]);
    // The UPDATE changed only w, which is gone at head: before, its preimage and postimage were the same row and
    // nothing was shown. Rows of snapshots before z existed show its default.
    expect(rows).toEqual([
      [2n, 'insert', 1n, 'a', 7],
      [BigInt(updated), 'update_preimage', 1n, 'a', 7],
      [BigInt(updated), 'update_postimage', 1n, 'a', 7],
      [BigInt(added + 1), 'insert', 2n, 'b', 8],
    ]);
  });

  it('a commit flagged maintenance that inserts or deletes rows shows them; a compaction, which only moves rows, shows none', async () => {
    const h = await history();
    await h.sql(`INSERT INTO main.t SELECT i, 'a' || i FROM range(0, 50) r(i)`);
    await h.sql(`INSERT INTO main.t SELECT i, 'b' || i FROM range(50, 80) r(i)`);
    const inserted = await h.maintenance(`INSERT INTO main.t SELECT i, 'm' || i FROM range(80, 90) r(i)`);
    const deleted = await h.maintenance('DELETE FROM main.t WHERE id < 5');
    await h.sql('DELETE FROM main.t WHERE id % 9 = 0');
    const compacted = await h.compact();
    for (const [from, to] of [[inserted, inserted], [deleted, deleted], [compacted, compacted], [inserted, compacted]] as const) {
      expect(await changes(h.c, from, to), `changes ${from}..${to}`).toEqual(await h.model.changes(from, to));
    }
    expect((await changes(h.c, inserted, inserted)).length).toBe(10);
    expect((await changes(h.c, deleted, deleted)).length).toBe(5);
    expect(await changes(h.c, compacted, compacted)).toEqual([]);
    h.close();
  });

  type Op =
    | { kind: 'insert'; n: number }
    | { kind: 'delete'; lo: number; width: number }
    | { kind: 'update'; lo: number; width: number }
    | { kind: 'compact' }
    | { kind: 'restore'; back: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), n: fc.integer({ min: 1, max: 5 }) }),
    fc.record({ kind: fc.constant('delete' as const), lo: fc.nat({ max: 20 }), width: fc.integer({ min: 1, max: 6 }) }),
    fc.record({ kind: fc.constant('update' as const), lo: fc.nat({ max: 20 }), width: fc.integer({ min: 1, max: 6 }) }),
    fc.constant({ kind: 'compact' as const }),
    fc.record({ kind: fc.constant('restore' as const), back: fc.integer({ min: 1, max: 6 }) }),
  );

  it(`${RUNS} random histories: every snapshot alone and every range from the first, as the model says`, { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 2, maxLength: 7 }), async (ops) => {
        const h = await history();
        const first = (await h.head()) + 1;
        let next = 0;
        for (const o of ops) {
          if (o.kind === 'insert') {
            await h.sql(`INSERT INTO main.t SELECT i, 'v' || i FROM range(${next}, ${next + o.n}) r(i)`);
            next += o.n;
          } else if (o.kind === 'delete') await h.sql(`DELETE FROM main.t WHERE id >= ${o.lo} AND id < ${o.lo + o.width}`);
          else if (o.kind === 'update') await h.sql(`UPDATE main.t SET v = v || '+' WHERE id >= ${o.lo} AND id < ${o.lo + o.width}`);
          else if (o.kind === 'compact') await h.compact();
          else await h.restore(Math.max(first - 1, (await h.head()) - o.back));
        }
        const head = await h.head();
        for (let s = first; s <= head; s++) {
          expect(await changes(h.c, s, s), `${JSON.stringify(ops)}: changes ${s}..${s}`).toEqual(await h.model.changes(s, s));
          expect(await changes(h.c, first, s), `${JSON.stringify(ops)}: changes ${first}..${s}`).toEqual(await h.model.changes(first, s));
        }
        h.close();
      }),
      { numRuns: RUNS, ...replay },
    );
  });
});
