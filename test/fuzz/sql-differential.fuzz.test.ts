// The differential SQL fuzzer (issue 42): random sequences of DDL, INSERT (VALUES and SELECT), UPDATE,
// DELETE, MERGE, CREATE TABLE … AS, transactions of several statements, compactions, table and catalog restores, tags, reopens and
// retain-from with excision, through sql() and the API — and the same statements on a model kept as plain
// DuckDB tables, copied after every commit (test/support/lake-model.ts). After each sequence:
// - every retained snapshot (and every tagged one) reads, table by table, as the model's copy of it;
// - tableChanges of each snapshot alone and between random pairs of snapshots is the model's row-by-row difference of its copies (in the
//   columns of `to`, maintenance commits silent), and each row keeps one row id throughout;
// - changes() between the same pairs adds and removes exactly the files that turn one snapshot's listing
//   into the other's;
// - verify({ files }) finds nothing.
//
// Bounded in `npm test` (SQL_DIFF_RUNS sequences, 40 by default); a failure prints fast-check's seed and path:
// FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run test/fuzz/sql-differential replays it, SQL_DIFF_RUNS=500 runs longer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Catalog, isStrataError } from '../../src/index.js';
import { openCatalog, tempDir } from '../helpers.js';
import { col, LakeModel, type ModelColumn, type ModelTable } from '../support/lake-model.js';

const RUNS = Number(process.env.SQL_DIFF_RUNS ?? 40);
const replay = process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED), ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}) };

const KINDS = [
  ['createTable', 2],
  ['dropTable', 1],
  ['insert', 8],
  ['insertSelect', 2],
  ['update', 5],
  ['delete', 5],
  ['merge', 4],
  ['createAs', 1],
  ['addColumn', 2],
  ['dropColumn', 1],
  ['renameColumn', 1],
  ['widen', 1],
  ['renameTable', 1],
  ['compact', 2],
  ['restoreTable', 2],
  ['restoreCatalog', 1],
  ['transaction', 2],
  ['tag', 1],
  ['reopen', 1],
  ['retain', 1],
] as const;
type Kind = (typeof KINDS)[number][0];

/** One step: its kind and raw random numbers the runner turns into a choice against the state it meets. */
interface Step {
  kind: Kind;
  r: number[];
}
const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.oneof(...KINDS.filter(([, w]) => w > 0).map(([k, weight]) => ({ weight, arbitrary: fc.constant(k) }))),
  r: fc.array(fc.nat({ max: 1_000_000 }), { minLength: 8, maxLength: 8 }),
});

const TYPES = ['INTEGER', 'BIGINT', 'VARCHAR', 'DOUBLE', 'DATE', 'DECIMAL(9,2)', 'BOOLEAN', 'TIMESTAMP'] as const;
/** Values of each type as SQL literals: edges included (a big BIGINT, quotes, NaN, microseconds). */
const VALUES: Record<string, string[]> = {
  INTEGER: ['0', '1', '-7', '42', '2147483647'],
  BIGINT: ['0', '3', '-1', '9007199254740993', '-9223372036854775808'],
  VARCHAR: ["''", "'a'", "'o''k'", "'Ä名'", "'x y'"],
  DOUBLE: ['0.1', '-2.5', '1e300', "CAST('NaN' AS DOUBLE)", '-0.0'],
  DATE: ["DATE '2026-01-05'", "DATE '1970-01-01'", "DATE '2024-02-29'"],
  'DECIMAL(9,2)': ['12.50', '-0.01', '9999999.99'],
  BOOLEAN: ['true', 'false'],
  TIMESTAMP: ["TIMESTAMP '2026-01-01 12:00:00.123456'", "TIMESTAMP '1999-12-31 23:59:59'"],
};
const WIDER: Record<string, string> = { INTEGER: 'BIGINT' };

const pick = <T>(xs: readonly T[], r: number): T => xs[r % xs.length]!;
const valueOf = (c: ModelColumn, r: number) => (r % 7 === 0 ? 'NULL' : pick(VALUES[c.type]!, r));

/** A run: the catalog (reopened now and then), the model, and what the checks need. */
class Run {
  nextId = 1;
  nextName = 1;
  retainFrom = 0;
  readonly tags = new Map<string, number>();
  head = 0;
  /** What each step did, for a failure's message. */
  readonly log: string[] = [];

  constructor(
    public c: Catalog,
    readonly dir: string,
    readonly m: LakeModel,
  ) {}

  tables(): [number, { name: string; columns: ModelColumn[] }][] {
    return [...this.m.live.entries()];
  }

  /** A statement on both sides: Strata's text with the lake's names, the model's with `c<mid>`. */
  async both(lake: string, model: string, tx?: { sql(q: string): Promise<unknown> }): Promise<void> {
    this.log.push(lake);
    let modelError: unknown;
    await this.m.run(model).catch((e: unknown) => (modelError = e));
    const lakeError = await (tx ? tx.sql(lake) : this.c.sql(lake)).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (modelError !== undefined) {
      // DuckDB refused it on plain tables: the lake refuses it too, with a StrataError.
      expect(isStrataError(lakeError, 'INVALID_ARGUMENT') || isStrataError(lakeError, 'CONFLICT'), `${lake}: the model refused it (${String(modelError)}), the lake said ${String(lakeError)}`).toBe(true);
      throw new Refused();
    }
    if (lakeError !== undefined) throw lakeError;
  }

  /** Records the commit a step made, if it made one. */
  async committed(changed: ReadonlySet<number> | undefined): Promise<void> {
    const r = await this.c.reader();
    const head = r.snapshot.id;
    await r.close();
    if (head === this.head) return;
    expect(head, 'one commit per step').toBe(this.head + 1);
    await this.m.record(head, this.head, changed);
    this.head = head;
  }
}

/** A statement both sides refused: nothing committed, the step done. */
class Refused extends Error {}

const where = (t: { columns: ModelColumn[] }, r: number[], name: (c: ModelColumn) => string): string => {
  const id = t.columns[0]!;
  const other = t.columns[1 + (r[3]! % Math.max(1, t.columns.length - 1))];
  switch (r[2]! % 4) {
    case 0:
      return `${name(id)} % ${2 + (r[4]! % 4)} = ${r[5]! % 2}`;
    case 1:
      return `${name(id)} BETWEEN ${r[4]! % 40} AND ${(r[4]! % 40) + (r[5]! % 10)}`;
    case 2:
      return other === undefined ? 'true' : `${name(other)} IS NULL`;
    default:
      return other === undefined ? 'false' : `${name(other)} = ${valueOf(other, r[6]!)}`;
  }
};

async function stepOn(run: Run, s: Step): Promise<void> {
  const { m } = run;
  const r = s.r;
  const tables = run.tables();
  const target = tables.length === 0 ? undefined : pick(tables, r[0]!);
  const lakeName = (c: ModelColumn) => `"${c.name}"`;
  switch (s.kind) {
    case 'createTable': {
      if (tables.length >= 3) return;
      const name = `t${run.nextName++}`;
      const columns = [m.newColumn('id', 'BIGINT')];
      for (let i = 0; i < 1 + (r[1]! % 3); i++) columns.push(m.newColumn(`v${i}`, pick(TYPES, r[2 + i]!)));
      await run.both(`CREATE TABLE ${name} (${columns.map((c) => `"${c.name}" ${c.type}`).join(', ')})`, 'SELECT 1');
      const identity = await m.createTable(name, columns);
      return run.committed(new Set([identity]));
    }
    case 'dropTable': {
      if (target === undefined) return;
      await run.both(`DROP TABLE ${target[1].name}`, 'SELECT 1');
      await m.dropTable(target[0]);
      return run.committed(new Set());
    }
    case 'insert':
    case 'insertSelect': {
      if (target === undefined) return;
      const [identity, t] = target;
      if (s.kind === 'insertSelect') {
        // Every id in use is below nextId, so the copies' ids (id + offset) are below twice it: fresh.
        const offset = run.nextId;
        run.nextId = 2 * offset + 1;
        const cond = (n: (c: ModelColumn) => string) => where(t, r, n);
        const list = (n: (c: ModelColumn) => string) => t.columns.map((c, i) => (i === 0 ? `${n(c)} + ${offset}` : n(c))).join(', ');
        await run.both(`INSERT INTO ${t.name} SELECT ${list(lakeName)} FROM ${t.name} WHERE ${cond(lakeName)}`, `INSERT INTO live_${identity} SELECT ${list(col)} FROM live_${identity} WHERE ${cond(col)}`);
      } else {
        const rows = Array.from({ length: 1 + (r[1]! % 5) }, (_, i) => `(${[run.nextId + i, ...t.columns.slice(1).map((c, j) => valueOf(c, r[2 + ((i + j) % 6)]! + i))].join(', ')})`);
        run.nextId += rows.length;
        const values = `VALUES ${rows.join(', ')}`;
        await run.both(`INSERT INTO ${t.name} (${t.columns.map(lakeName).join(', ')}) ${values}`, `INSERT INTO live_${identity} (${t.columns.map(col).join(', ')}) ${values}`);
      }
      return run.committed(new Set([identity]));
    }
    case 'update': {
      if (target === undefined || target[1].columns.length < 2) return;
      const [identity, t] = target;
      const c = t.columns[1 + (r[1]! % (t.columns.length - 1))]!;
      const set = r[7]! % 3 === 0 && /INT|DOUBLE|DECIMAL/.test(c.type) ? (n: (c: ModelColumn) => string) => `${n(c)} = ${n(c)} + 1` : () => '';
      const assign = (n: (c: ModelColumn) => string) => set(n) || `${n(c)} = ${valueOf(c, r[7]!)}`;
      await run.both(`UPDATE ${t.name} SET ${assign(lakeName)} WHERE ${where(t, r, lakeName)}`, `UPDATE live_${identity} SET ${assign(col)} WHERE ${where(t, r, col)}`);
      return run.committed(new Set([identity]));
    }
    case 'delete': {
      if (target === undefined) return;
      const [identity, t] = target;
      await run.both(`DELETE FROM ${t.name} WHERE ${where(t, r, lakeName)}`, `DELETE FROM live_${identity} WHERE ${where(t, r, col)}`);
      return run.committed(new Set([identity]));
    }
    case 'merge': {
      if (target === undefined) return;
      const [identity, t] = target;
      // A source of distinct ids: some drawn from those ever used (matched where the table still has them),
      // the rest fresh (inserted); values drawn as INSERT's are.
      const fresh = run.nextId;
      const ids = new Set<number>();
      if (fresh > 1) for (let i = 0; i < 1 + (r[1]! % 4); i++) ids.add(1 + ((r[2 + i]! * (i + 1)) % (fresh - 1)));
      const added = r[6]! % 3;
      for (let i = 0; i < added; i++) ids.add(run.nextId++);
      const rows = [...ids].map((id, i) => `(${[id, ...t.columns.slice(1).map((c, j) => valueOf(c, r[(i + j) % 8]! + i + j))].join(', ')})`);
      const keys = t.columns.map((_, i) => `k${i}`);
      const other = t.columns.length > 1 ? 1 + (r[7]! % (t.columns.length - 1)) : undefined;
      const statement = (table: string, n: (c: ModelColumn) => string) => {
        const clauses = [];
        if (r[5]! % 3 === 0) clauses.push(`WHEN MATCHED AND t.${n(t.columns[0]!)} % 3 = ${r[4]! % 3} THEN DELETE`);
        if (other !== undefined) clauses.push(`WHEN MATCHED THEN UPDATE SET ${n(t.columns[other]!)} = s.k${other}`);
        clauses.push(
          r[4]! % 2 === 0
            ? `WHEN NOT MATCHED AND s.k0 >= ${fresh} THEN INSERT VALUES (${keys.map((k) => `s.${k}`).join(', ')})`
            : `WHEN NOT MATCHED AND s.k0 >= ${fresh} THEN INSERT (${t.columns.map(n).join(', ')}) VALUES (${keys.map((k) => `s.${k}`).join(', ')})`,
        );
        if (r[3]! % 4 === 0) clauses.push(`WHEN NOT MATCHED BY SOURCE AND ${where(t, r, (c) => `t.${n(c)}`)} THEN DELETE`);
        return `MERGE INTO ${table} t USING (VALUES ${rows.join(', ')}) s(${keys.join(', ')}) ON t.${n(t.columns[0]!)} = s.k0 ${clauses.join(' ')}`;
      };
      await run.both(statement(t.name, lakeName), statement(`live_${identity}`, col));
      return run.committed(new Set([identity]));
    }
    case 'createAs': {
      if (target === undefined || tables.length >= 3) return;
      const [identity, t] = target;
      const name = `t${run.nextName++}`;
      const columns = t.columns.map((c) => m.newColumn(c.name, c.type));
      const cond = (n: (c: ModelColumn) => string) => where(t, r, n);
      await run.both(`CREATE TABLE ${name} AS SELECT ${t.columns.map(lakeName).join(', ')} FROM ${t.name} WHERE ${cond(lakeName)}`, 'SELECT 1');
      const made = await m.createTable(name, columns);
      await m.run(`INSERT INTO live_${made} SELECT ${t.columns.map(col).join(', ')} FROM live_${identity} WHERE ${cond(col)}`);
      return run.committed(new Set([made]));
    }
    case 'addColumn': {
      if (target === undefined) return;
      const [identity, t] = target;
      const type = pick(TYPES, r[1]!);
      const dflt = r[2]! % 2 === 0 ? null : pick(VALUES[type]!, r[3]!);
      const c = m.newColumn(`a${run.nextName++}`, type, dflt === 'NULL' ? null : dflt);
      const def = c.default === null ? '' : ` DEFAULT ${c.default}`;
      await run.both(`ALTER TABLE ${t.name} ADD COLUMN "${c.name}" ${type}${def}`, `ALTER TABLE live_${identity} ADD COLUMN ${col(c)} ${type}${def}`);
      t.columns.push(c);
      return run.committed(new Set([identity]));
    }
    case 'dropColumn': {
      if (target === undefined || target[1].columns.length < 3) return;
      const [identity, t] = target;
      const c = t.columns[1 + (r[1]! % (t.columns.length - 1))]!;
      await run.both(`ALTER TABLE ${t.name} DROP COLUMN "${c.name}"`, `ALTER TABLE live_${identity} DROP COLUMN ${col(c)}`);
      t.columns.splice(t.columns.indexOf(c), 1);
      return run.committed(new Set([identity]));
    }
    case 'renameColumn': {
      if (target === undefined || target[1].columns.length < 2) return;
      const [identity, t] = target;
      const c = t.columns[1 + (r[1]! % (t.columns.length - 1))]!;
      const to = `r${run.nextName++}`;
      await run.both(`ALTER TABLE ${t.name} RENAME COLUMN "${c.name}" TO "${to}"`, 'SELECT 1');
      c.name = to;
      return run.committed(new Set([identity]));
    }
    case 'widen': {
      const found = tables.flatMap(([identity, t]) => t.columns.filter((c) => WIDER[c.type] !== undefined).map((c) => [identity, t, c] as const));
      if (found.length === 0) return;
      const [identity, t, c] = pick(found, r[1]!);
      const to = WIDER[c.type]!;
      await run.both(`ALTER TABLE ${t.name} ALTER COLUMN "${c.name}" TYPE ${to}`, `ALTER TABLE live_${identity} ALTER COLUMN ${col(c)} TYPE ${to}`);
      c.type = to;
      return run.committed(new Set([identity]));
    }
    case 'renameTable': {
      if (target === undefined) return;
      const [identity, t] = target;
      const to = `t${run.nextName++}`;
      await run.both(`ALTER TABLE ${t.name} RENAME TO ${to}`, 'SELECT 1');
      t.name = to;
      return run.committed(new Set([identity]));
    }
    case 'compact': {
      if (target === undefined) return;
      run.log.push(`compact ${target[1].name}`);
      await run.c.compact('main', target[1].name, { targetFileSize: 1 + (r[1]! % 2) * 1_000_000 });
      return run.committed(new Set());
    }
    case 'restoreTable': {
      if (target === undefined) return;
      const [identity, t] = target;
      const at = [...m.snapshots.entries()].filter(([id, state]) => id >= run.retainFrom && id < run.head && state.has(identity));
      if (at.length === 0) return;
      const [k, state] = pick(at, r[1]!);
      run.log.push(`restoreTable ${t.name} ${k}`);
      await run.c.restoreTable('main', t.name, k);
      await m.restore(identity, state.get(identity)!);
      return run.committed(new Set([identity]));
    }
    case 'restoreCatalog': {
      const at = [...m.snapshots.keys()].filter((id) => id >= run.retainFrom && id < run.head);
      if (at.length === 0) return;
      const k = pick(at, r[1]!);
      run.log.push(`restoreCatalog ${k}`);
      await run.c.restoreCatalog(k);
      const state = m.snapshots.get(k)!;
      for (const [identity] of run.tables()) if (!state.has(identity)) await m.dropTable(identity);
      for (const [identity, t] of state) await m.restore(identity, t, t.name);
      return run.committed(undefined);
    }
    case 'transaction': {
      if (target === undefined) return;
      const [identity, t] = target;
      const statements = 2 + (r[1]! % 2);
      run.log.push(`transaction of ${statements}`);
      // The model's statements run as the transaction's do; a refusal rolls both back.
      await m.run('BEGIN');
      try {
        await run.c.transaction(async (tx) => {
          for (let i = 0; i < statements; i++) {
            const rows = `(${[run.nextId++, ...t.columns.slice(1).map((c) => valueOf(c, r[2 + i]! + i))].join(', ')})`;
            if (i % 2 === 0) await run.both(`INSERT INTO ${t.name} (${t.columns.map(lakeName).join(', ')}) VALUES ${rows}`, `INSERT INTO live_${identity} (${t.columns.map(col).join(', ')}) VALUES ${rows}`, tx);
            const turned = [...r.slice(i), ...r.slice(0, i)];
            if (i % 2 === 1) await run.both(`DELETE FROM ${t.name} WHERE ${where(t, turned, lakeName)}`, `DELETE FROM live_${identity} WHERE ${where(t, turned, col)}`, tx);
          }
        });
        await m.run('COMMIT');
      } catch (e) {
        await m.run('ROLLBACK');
        throw e;
      }
      return run.committed(new Set([identity]));
    }
    case 'tag': {
      const at = [...m.snapshots.keys()].filter((id) => id >= run.retainFrom);
      const k = pick(at, r[1]!);
      const name = `tag${run.nextName++}`;
      run.log.push(`tag ${name} ${k}`);
      await run.c.createTag(name, k);
      run.tags.set(name, k);
      return;
    }
    case 'reopen': {
      run.log.push('reopen');
      await run.c.close();
      run.c = await openCatalog({ dir: run.dir });
      return;
    }
    case 'retain': {
      if (run.head <= run.retainFrom) return;
      const to = run.retainFrom + 1 + (r[1]! % (run.head - run.retainFrom));
      run.log.push(`retain from ${to}, excise`);
      await run.c.advanceRetainFrom({ snapshot: to });
      await run.c.excise();
      run.retainFrom = to;
      return;
    }
  }
}

/** What a table holds in the lake at snapshot `s` (or by tag), every value as DuckDB's text, sorted by id. */
async function lakeRows(c: Catalog, t: ModelTable, at: string): Promise<(string | null)[][]> {
  const list = t.columns.map((x, i) => `CAST("${x.name}" AS VARCHAR) AS k${i}`).join(', ');
  const res = await c.sql(`SELECT ${list} FROM "${t.name}" AT (${at}) ORDER BY "id"`);
  return res.rows.map((row) => Object.values(row).map((v) => (v === null ? null : String(v))));
}

async function modelRows(m: LakeModel, t: ModelTable): Promise<(string | null)[][]> {
  return m.text(`SELECT ${t.columns.map((x) => `CAST(${col(x)} AS VARCHAR)`).join(', ')} FROM ${t.copy} ORDER BY ${col(t.columns[0]!)}`);
}

/** The snapshots a check may read: at or above retain-from, and every tagged one. */
function readable(run: Run): number[] {
  const tagged = new Set(run.tags.values());
  return [...run.m.snapshots.keys()].filter((s) => s >= run.retainFrom || tagged.has(s));
}

async function checkSnapshots(run: Run): Promise<void> {
  for (const s of readable(run)) {
    for (const t of run.m.snapshots.get(s)!.values()) {
      expect(await lakeRows(run.c, t, `VERSION => ${s}`), `${t.name} at snapshot ${s}`).toEqual(await modelRows(run.m, t));
    }
  }
  for (const [tag, s] of run.tags) {
    for (const t of run.m.snapshots.get(s)!.values()) expect(await lakeRows(run.c, t, `VERSION => '${tag}'`), `${t.name} at tag ${tag}`).toEqual(await modelRows(run.m, t));
  }
  // Below retain-from, untagged snapshots are gone for good.
  const tagged = new Set(run.tags.values());
  const gone = [...run.m.snapshots.keys()].filter((s) => s < run.retainFrom && !tagged.has(s));
  for (const s of gone.slice(-2)) {
    const r = await run.c.reader({ snapshot: s }).catch((e: unknown) => e);
    expect(isStrataError(r, 'OUT_OF_RETENTION'), `snapshot ${s} below retain-from ${run.retainFrom}`).toBe(true);
  }
}

type Change = [number, string, string, ...unknown[]];

/**
 * The model's tableChanges of table `identity` over [from, to]: at each snapshot, the rows whose id appears,
 * goes, or whose values change in the columns the table had then, shown in the columns of `to` (a column that
 * did not exist yet reads as its default).
 */
async function modelChanges(m: LakeModel, identity: number, from: number, to: number): Promise<Change[]> {
  const end = m.snapshots.get(to)!.get(identity)!;
  const out: Change[] = [];
  for (let s = from; s <= to; s++) {
    const cur = m.snapshots.get(s)!.get(identity)!;
    const prev = m.snapshots.get(s - 1)?.get(identity);
    if (prev !== undefined && prev.copy === cur.copy) continue;
    const read = async (t: ModelTable) => {
      const rows = await m.text(`SELECT * FROM ${t.copy}`);
      const names = t.columns.map(col);
      return new Map(rows.map((row) => [row[0]!, new Map(names.map((n, i) => [n, row[i]!]))]));
    };
    const before = prev === undefined ? new Map<string, Map<string, string | null>>() : await read(prev);
    const after = await read(cur);
    const shown = async (t: ModelTable, id: string) => {
      const select = end.columns.map((c) => (t.columns.some((x) => x.mid === c.mid) ? `CAST(CAST(${col(c)} AS ${c.type}) AS VARCHAR)` : `CAST(CAST((${c.default ?? 'NULL'}) AS ${c.type}) AS VARCHAR)`));
      return (await m.text(`SELECT ${select.join(', ')} FROM ${t.copy} WHERE ${col(t.columns[0]!)} = ${id}`))[0]!;
    };
    const common = cur.columns.filter((c) => prev?.columns.some((x) => x.mid === c.mid)).map(col);
    for (const [id, row] of after) {
      const old = before.get(id);
      if (old === undefined) out.push([s, 'insert', id, ...(await shown(cur, id))]);
      else if (common.some((n) => old.get(n) !== row.get(n))) out.push([s, 'update_preimage', id, ...(await shown(prev!, id))], [s, 'update_postimage', id, ...(await shown(cur, id))]);
    }
    for (const id of before.keys()) if (!after.has(id)) out.push([s, 'delete', id, ...(await shown(prev!, id))]);
  }
  return out;
}

/** Each snapshot's own changes, then four random ranges, of every table that lived through them. */
async function checkChanges(run: Run, r: number[]): Promise<void> {
  const rowIds = new Map<string, unknown>();
  const ends = readable(run).filter((s) => s > run.retainFrom);
  if (ends.length === 0) return;
  // [to, how far back from] — undefined: the snapshot alone.
  const ranges: [number, number | undefined][] = [...ends.map((s): [number, undefined] => [s, undefined]), ...r.slice(0, 4).map((x, i): [number, number] => [pick(ends, x), r[i + 1]!])];
  for (const [to, spread] of ranges) {
    for (const end of run.m.snapshots.get(to)?.values() ?? []) {
      // A range over which the table lived throughout, from its creation at the earliest, and whose first
      // snapshot's predecessor is retained: a snapshot's changes are what it did to the one before.
      let from = to;
      if (spread !== undefined) {
        while (from - 1 >= Math.max(1, run.retainFrom + 1) && run.m.snapshots.get(from - 1)?.has(end.identity)) from--;
        from += spread % (to - from + 1);
      }
      if (from - 1 < run.retainFrom) continue;
      const got = (await run.c.tableChanges('main', end.name, { from, to })).rows;
      const lake: Change[] = got.map((row) => {
        const { snapshot_id: sid, rowid, change_type: kind, ...values } = row;
        const id = String(values.id);
        const seen = rowIds.get(`${end.identity}:${id}`);
        if (seen === undefined) rowIds.set(`${end.identity}:${id}`, rowid);
        else expect(rowid, `row ${id} of ${end.name} keeps its row id`).toBe(seen);
        return [Number(sid), String(kind), id, ...end.columns.map((c) => values[c.name])] as Change;
      });
      const model = await modelChanges(run.m, end.identity, from, to);
      // The lake's values are JavaScript's; each is held to the model's text by its type.
      for (const x of lake) {
        const twin = model.find((y) => y[0] === x[0] && y[1] === x[1] && y[2] === x[2]);
        if (twin !== undefined) end.columns.forEach((c, i) => (x[3 + i] = sameValue(c.type, x[3 + i], twin[3 + i] as string | null) ? twin[3 + i] : textOf(x[3 + i])));
      }
      const order = (x: Change) => `${String(x[0]).padStart(6, '0')} ${x[2].padStart(20, '0')} ${x[1]}`;
      const sort = (xs: Change[]) => xs.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
      expect(sort(lake), `tableChanges of ${end.name} over [${from}, ${to}]`).toEqual(sort(model));
      await checkFiles(run, end, from, to);
    }
  }
}

/** A lake value shown for a failure's message. */
function textOf(v: unknown): string | null {
  return v === null || v === undefined ? null : `${typeof v}:${String(v)}`;
}

/**
 * Whether a tableChanges value (JavaScript, as sql() gives values) is the model's DuckDB text of a value of
 * `type`: numbers by value (NaN and -0 included), dates and times by their instant, text as it is.
 */
function sameValue(type: string, v: unknown, text: string | null): boolean {
  if (v === null || text === null) return v === null && text === null;
  if (type === 'DOUBLE') return Object.is(Number(v), Number(text.replace(/^nan$/i, 'NaN').replace(/^(-?)inf$/i, '$1Infinity')));
  if (type === 'DATE' || type === 'TIMESTAMP') {
    const ms = v instanceof Date ? v.getTime() : Date.parse(String(v).replace(' ', 'T') + (String(v).length > 10 ? 'Z' : ''));
    return ms === Date.parse(`${text.replace(' ', 'T').slice(0, 23)}${text.length > 10 ? 'Z' : ''}`);
  }
  return String(v) === text;
}

/** changes() over [from, to]: the files live just before `from`, less those removed, plus those added, are those live at `to`. */
async function checkFiles(run: Run, t: ModelTable, from: number, to: number): Promise<void> {
  const { addedFiles, removedFiles } = await run.c.changes('main', t.name, { from, to });
  const listing = async (s: number) => {
    const r = await run.c.reader({ snapshot: s });
    try {
      return (await r.dataFiles('main', run.m.snapshots.get(s)!.get(t.identity)!.name)).map((f) => f.id);
    } finally {
      await r.close();
    }
  };
  const live = new Set(run.m.snapshots.get(from - 1)?.has(t.identity) && from - 1 >= run.retainFrom ? await listing(from - 1) : []);
  for (const f of addedFiles) live.add(f.id);
  for (const f of removedFiles) live.delete(f.id);
  expect([...live].sort((a, b) => a - b), `changes of ${t.name} over [${from}, ${to}]`).toEqual((await listing(to)).sort((a, b) => a - b));
}

describe('SQL against a model of plain DuckDB tables', () => {
  it(`${RUNS} sequences: every retained snapshot, tableChanges and changes between random pairs as the model says; verify clean`, { timeout: 900_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), fc.array(fc.nat({ max: 1_000_000 }), { minLength: 5, maxLength: 5 }), async (steps, r) => {
        const dir = await tempDir();
        const m = await LakeModel.open();
        const run = new Run(await openCatalog({ dir }), dir, m);
        try {
          await m.record(0, undefined);
          for (const s of [{ kind: 'createTable' as const, r: [0, 1, 2, 3, 4, 5, 6, 7] }, ...steps]) {
            try {
              await stepOn(run, s);
            } catch (e) {
              if (!(e instanceof Refused)) throw new Error(`step ${run.log.length}: ${run.log.at(-1)}\n${run.log.join('\n')}`, { cause: e });
            }
          }
          await checkSnapshots(run);
          await checkChanges(run, r);
          expect((await run.c.verify({ files: true })).violations).toEqual([]);
          if (process.env.SQL_DIFF_LOG) console.log(run.log.join(' | '));
        } catch (e) {
          throw new Error(`after: ${run.log.join(' | ')}`, { cause: e });
        } finally {
          await run.c.close();
          m.close();
        }
      }),
      { numRuns: RUNS, ...replay },
    );
  });
});
