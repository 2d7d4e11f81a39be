// The import fuzzer: a valid lake — exported from a real history of real Parquet, gone on as DuckLake goes on
// with inlined rows and inline deletes — tampered with at random: the tamperings of issue 42, any cell of any of
// its tables set to a random value, rows deleted or doubled, snapshot ids moved apart. Every import either
// refuses with a StrataError and leaves nothing (no catalog directory), or makes a catalog that verifies clean,
// files included, and counts, for every table at every snapshot the lake holds, the rows the lake's own rows
// say — computed here from the SQLite file and the delete files' positions by a model that shares no code with
// Strata (DuckLake's reading: a file's records less the union of its delete file's positions and the rows
// deleted inline by then, plus the inlined rows live then).
//
// A failure prints fast-check's seed and path: FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run test/fuzz
// replays it. IMPORT_FUZZ_RUNS sets how many lakes (default 20; FUZZ_RUNS, for the API fuzzer, gives a 20th).
import { existsSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/index.js';
import { type ExportedLake, exportedLake, inlinedLake, outcome, removeLake } from '../ducklake/lakes.js';
import { gapAt, TAMPERED } from '../ducklake/tamperings.js';

const RUNS = Number(process.env.IMPORT_FUZZ_RUNS ?? (process.env.FUZZ_RUNS === undefined ? 20 : Math.max(1, Math.round(Number(process.env.FUZZ_RUNS) / 20))));
const replay = process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED), ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}) };

const CODES = new Set(['SNAPSHOT_NOT_FOUND', 'NOT_FOUND', 'ALREADY_EXISTS', 'INVALID_ARGUMENT', 'CORRUPT', 'OUT_OF_RETENTION', 'TAG_NOT_FOUND']);

let lake: ExportedLake;
let base: string;
/** Every table of the base lake and its columns: what a random edit picks from. */
let tables: { name: string; columns: string[] }[];

beforeAll(async () => {
  lake = await exportedLake();
  base = await inlinedLake(lake);
  const db = new Database(base, { readonly: true });
  try {
    const names = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
    tables = names
      .map((name) => ({ name, columns: (db.prepare(`PRAGMA table_info("${name}")`).all() as { name: string }[]).map((c) => c.name) }))
      .filter((t) => (db.prepare(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n > 0);
  } finally {
    db.close();
  }
}, 120_000);
afterAll(() => removeLake(lake));

// ---- tamperings

type Tampering =
  | { kind: 'named'; sql: string }
  | { kind: 'cell'; table: number; row: number; column: number; value: unknown }
  | { kind: 'delete'; table: number; row: number }
  | { kind: 'double'; table: number; row: number }
  | { kind: 'gap'; from: number; by: number };

const value = fc.oneof(
  fc.integer({ min: -3, max: 40 }),
  fc.constantFrom(0, 1, 2 ** 31, 2 ** 53, -(2 ** 53), 2 ** 63, 9223372036854775807n, -9223372036854775808n),
  fc.constant(null),
  fc.double({ noNaN: true }),
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', 'x'.repeat(300), 'a\u0000b', 'NULL', 'parquet', 'puffin', 'true', '2026-02-30 00:00:00+00', '2026-01-01 00:00:00+00', '[a, b]', 'int64', 'struct', '../x', '/etc/passwd'),
);

const tampering: fc.Arbitrary<Tampering> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...TAMPERED).map(([, sql]): Tampering => ({ kind: 'named', sql })) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('cell' as const), table: fc.nat(), row: fc.nat(), column: fc.nat(), value }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), table: fc.nat(), row: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('double' as const), table: fc.nat(), row: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('gap' as const), from: fc.integer({ min: 1, max: 22 }), by: fc.constantFrom(1, 7, 1_000_000, 10 ** 12) }) },
);

/** Applies `t` to the lake in `db`; one SQLite refuses (a key, a constraint) changes nothing. */
function apply(db: Database.Database, t: Tampering): void {
  try {
    if (t.kind === 'named') return void db.exec(t.sql);
    if (t.kind === 'gap') return void db.exec(gapAt(t.from, t.by));
    const table = tables[t.table % tables.length]!;
    const rowid = `(SELECT rowid FROM "${table.name}" ORDER BY rowid LIMIT 1 OFFSET ${t.row} % (SELECT max(1, count(*)) FROM "${table.name}"))`;
    if (t.kind === 'delete') return void db.exec(`DELETE FROM "${table.name}" WHERE rowid = ${rowid}`);
    if (t.kind === 'double') return void db.exec(`INSERT INTO "${table.name}" SELECT * FROM "${table.name}" WHERE rowid = ${rowid}`);
    const column = table.columns[t.column % table.columns.length]!;
    // A whole number goes in as SQLite's INTEGER (a double would be REAL), as a lake's writer would put it.
    db.prepare(`UPDATE "${table.name}" SET "${column}" = ? WHERE rowid = ${rowid}`).run(typeof t.value === 'number' && Number.isSafeInteger(t.value) ? BigInt(t.value) : (t.value as never));
  } catch (e) {
    if (!(e instanceof Database.SqliteError)) throw e;
  }
}

// ---- the model: DuckLake's counts, from the lake's rows and its delete files

const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;

interface Row {
  [k: string]: unknown;
}

/** For each table at each snapshot the lake keeps readable, its qualified name and how many rows DuckLake counts. */
async function expectedCounts(file: string): Promise<{ snapshot: number; name: string; rows: number }[]> {
  const db = new Database(file, { readonly: true });
  const duck = await DuckDBInstance.create(':memory:');
  const c = await duck.connect();
  try {
    const all = (sql: string, ...args: unknown[]) => db.prepare(sql).all(...args) as Row[];
    const live = (r: Row, s: number) => Number(r.begin_snapshot) <= s && (r.end_snapshot === null || Number(r.end_snapshot) > s);
    const dataPath = String((db.prepare(`SELECT value FROM ducklake_metadata WHERE key = 'data_path'`).get() as Row).value);
    const snapshots = all('SELECT snapshot_id AS id FROM ducklake_snapshot ORDER BY 1').map((r) => Number(r.id));
    const retention = db.prepare('SELECT retain_from AS r FROM strata_retention').get() as Row | undefined;
    const from = retention === undefined ? snapshots[0]! : Number(retention.r);
    const schemas = all('SELECT * FROM ducklake_schema');
    const tableRows = all('SELECT * FROM ducklake_table');
    const dataFiles = all('SELECT * FROM ducklake_data_file');
    const deleteFiles = all('SELECT * FROM ducklake_delete_file');
    const names = new Set(all(`SELECT name FROM sqlite_master WHERE type = 'table'`).map((r) => String(r.name)));
    const inlinedTables = all('SELECT * FROM ducklake_inlined_data_tables');
    const positions = new Map<string, number[]>();
    const positionsOf = async (rel: string) => {
      if (!positions.has(rel)) positions.set(rel, ((await c.runAndReadAll(`SELECT pos FROM read_parquet('${path.join(dataPath, rel).replaceAll("'", "''")}')`)).getRowObjectsJS() as { pos: bigint }[]).map((r) => Number(r.pos)));
      return positions.get(rel)!;
    };
    const out: { snapshot: number; name: string; rows: number }[] = [];
    for (const s of snapshots.filter((x) => x >= from)) {
      for (const t of tableRows.filter((x) => live(x, s))) {
        const schema = schemas.find((x) => x.schema_id === t.schema_id && live(x, s))!;
        let rows = 0;
        const inlineDeletes = names.has(`ducklake_inlined_delete_${t.table_id}`) ? all(`SELECT * FROM ducklake_inlined_delete_${t.table_id} WHERE begin_snapshot <= ?`, s) : [];
        for (const f of dataFiles.filter((x) => x.table_id === t.table_id && live(x, s))) {
          const gone = new Set<number>();
          const d = deleteFiles.find((x) => x.data_file_id === f.data_file_id && live(x, s));
          if (d !== undefined) for (const p of await positionsOf(String(d.path))) gone.add(p);
          for (const x of inlineDeletes) if (x.file_id === f.data_file_id) gone.add(Number(x.row_id));
          rows += Number(f.record_count) - gone.size;
        }
        for (const x of inlinedTables.filter((x) => x.table_id === t.table_id)) {
          rows += all(`SELECT begin_snapshot, end_snapshot FROM ${ident(String(x.table_name))}`).filter((r) => live(r, s)).length;
        }
        out.push({ snapshot: s, name: `${ident(String(schema.schema_name))}.${ident(String(t.table_name))}`, rows });
      }
    }
    return out;
  } finally {
    c.closeSync();
    duck.closeSync();
    db.close();
  }
}

// ---- the property

let runs = 0;

describe('the import fuzzer', () => {
  it(`${RUNS} tampered lakes: each refused with nothing left, or imported verify-clean and counting what the lake counts`, { timeout: 60_000 + RUNS * 30_000 }, async () => {
    let refused = 0;
    let imported = 0;
    const property = () =>
      fc.asyncProperty(fc.array(tampering, { minLength: 1, maxLength: 3 }), async (list) => {
        const n = ++runs;
        const file = path.join(lake.root, `fuzz-${n}.sqlite`);
        const dir = path.join(lake.root, `fuzz-${n}`);
        await copyFile(base, file);
        const db = new Database(file);
        for (const t of list) apply(db, t);
        db.close();
        try {
          const { error } = await outcome(file, { dir, copyFiles: true });
          if (error !== undefined) {
            refused++;
            expect(CODES.has(error.code), `${error.code}: ${error.message}`).toBe(true);
            expect(existsSync(dir), `refused (${error.message}) and left ${dir} behind`).toBe(false);
            return;
          }
          imported++;
          const expected = await expectedCounts(file);
          const c = await Catalog.open({ dir, create: false });
          try {
            expect((await c.verify({ files: true })).violations).toEqual([]);
            for (const e of expected) {
              const got = await c.sql(`SELECT count(*) AS n FROM ${e.name} AT (VERSION => ${e.snapshot})`);
              expect(Number(got.rows[0]!.n), `${e.name} at snapshot ${e.snapshot}`).toBe(e.rows);
            }
          } finally {
            await c.close();
          }
        } finally {
          await rm(dir, { recursive: true, force: true });
          await rm(file, { force: true });
        }
      });
    await fc.assert(property(), { numRuns: RUNS, ...replay });
    // Both outcomes happen: a fuzzer that only ever refuses (or only imports) checks half of the contract.
    // About one lake in five imports, so 20 of them all refused happen about one run in fifty (seen in CI):
    // then more lakes, up to twice as many again, before the fuzzer is said to check only half.
    for (let more = 0; more < 2 && imported === 0 && RUNS >= 20 && process.env.FUZZ_SEED === undefined; more++) await fc.assert(property(), { numRuns: RUNS });
    expect(refused, 'no lake was refused').toBeGreaterThan(0);
    if (RUNS >= 20 && process.env.FUZZ_PATH === undefined) expect(imported, 'no lake was imported').toBeGreaterThan(0);
  });
});
