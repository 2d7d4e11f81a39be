// `strata load`, `strata sql` and `strata changes`: a file loaded from the command line, queries at a tag and
// at an id as an aligned table, JSON and CSV; every type printed as DuckDB prints it (a plain DuckDB holding
// the same rows is the model: its CSV writer for --csv, its VARCHAR casts for the table view); results of any
// size streamed, in flat memory, and a reader that stops early ends the command quietly.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { runCli, runCliWith } from '../support/run-cli.js';
import { Catalog } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { EVERY_TYPE_COLUMNS, EVERY_TYPE_ROWS } from '../support/every-type.js';

const run = runCli;

describe('strata sql and strata load', () => {
  it('loads CSV rows, then answers at the newest snapshot, at a tag, as a table, JSON and CSV', async () => {
    const dir = await tempDir();
    const c = await Catalog.open({ dir });
    await c.transaction((tx) => tx.createTable('main', 'cities', [{ name: 'name', type: 'varchar' }, { name: 'people', type: 'int64' }]));
    await c.close();
    const file = path.join(await tempDir(), 'cities.csv');
    await writeFile(file, 'name,people\nOslo,709000\n"Zürich, ZH",421000\n');
    const loaded = await run('load', 'cities', file, '--dir', dir);
    expect(loaded.stdout, loaded.stderr).toMatch(/^loaded 2 rows into main\.cities as snapshot 2 \(main\/cities\/.+\.parquet\)/);
    expect((await run('tag', 'create', 'first', '2', '--dir', dir)).code).toBe(0);
    await writeFile(file, 'name,people\nLagos,15400000\n');
    expect((await run('load', 'main.cities', file, '--dir', dir)).code).toBe(0);

    const text = await run('sql', 'SELECT name, people FROM cities ORDER BY people DESC', '--dir', dir);
    expect(text.stdout).toMatch(/name\s+people\n-+\s+-+\nLagos\s+15400000\nOslo\s+709000\nZürich, ZH\s+421000\n\(3 rows, snapshot 3, \d+ ms\)/);
    const json = JSON.parse((await run('sql', 'SELECT count(*) AS n FROM cities', '--tag', 'first', '--json', '--dir', dir)).stdout);
    expect(json).toEqual([{ n: 2 }]);
    const csv = await run('sql', "SELECT name FROM cities AT (VERSION => 'first') ORDER BY name", '--csv', '--dir', dir);
    expect(csv.stdout).toBe('name\nOslo\n"Zürich, ZH"\n');
    const bad = await run('sql', 'SELECT nope FROM cities', '--dir', dir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/INVALID_ARGUMENT: .*nope/);
    expect((await run('load', 'cities', path.join(dir, 'missing.csv'), '--dir', dir)).stderr).toContain('there is no file');
    // EXPLAIN: DuckDB's plan, then the files each table's scan listed and skipped.
    const plan = await run('sql', "EXPLAIN SELECT name FROM cities WHERE people > 1000000", '--dir', dir);
    expect(plan.stdout, plan.stderr).toMatch(/READ_PARQUET/);
    expect(plan.stdout).toMatch(/\nmain\.cities at snapshot 3: 2 data files listed, 1 skipped by their statistics\n\(1 row, snapshot 3, \d+ ms\)\n$/);
  }, 60_000);

  it('strata sql reads the files a statement names, as on your own machine, and says so; --no-host-files reads none', async () => {
    const dir = await tempDir();
    const c = await Catalog.open({ dir });
    await c.transaction((tx) => tx.createTable('main', 'cities', [{ name: 'name', type: 'varchar' }, { name: 'people', type: 'int64' }]));
    await c.close();
    const file = path.join(await tempDir(), 'cities.csv');
    await writeFile(file, 'name,people\nOslo,709000\nLagos,15400000\n');
    const inserted = await run('sql', `INSERT INTO cities SELECT * FROM read_csv('${file}')`, '--dir', dir);
    expect(inserted.stdout, inserted.stderr).toMatch(/Count\n-+\n2\n/);
    const read = await run('sql', `SELECT count(*) AS n FROM read_csv('${file}') JOIN cities USING (name)`, '--json', '--dir', dir);
    expect(JSON.parse(read.stdout)).toEqual([{ n: 2 }]);
    const refused = await run('sql', `SELECT * FROM read_csv('${file}')`, '--no-host-files', '--dir', dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/INVALID_ARGUMENT: the statement reads a file/);
    expect((await run('sql', '--help')).stdout).toMatch(/--no-host-files[\s\S]*read_csv\('orders\.csv'\)/);
    // COPY FROM reads as read_csv does; COPY TO writes only with --write-files.
    const again = await run('sql', `COPY cities FROM '${file}' (HEADER)`, '--dir', dir);
    expect(again.stdout, again.stderr).toMatch(/Count\n-+\n2\n/);
    const out = path.join(path.dirname(file), 'out.csv');
    const unwritten = await run('sql', `COPY (SELECT name FROM cities ORDER BY name) TO '${out}'`, '--dir', dir);
    expect(unwritten.code).toBe(1);
    expect(unwritten.stderr).toMatch(/INVALID_ARGUMENT: COPY … TO writes the host file .*out\.csv, outside the lake/);
    await expect(readFile(out)).rejects.toThrow(/ENOENT/);
    const written = await run('sql', `COPY (SELECT name FROM cities ORDER BY name) TO '${out}'`, '--write-files', '--dir', dir);
    expect(written.code, written.stderr).toBe(0);
    expect(await readFile(out, 'utf8')).toBe('name\nLagos\nLagos\nOslo\nOslo\n');
  }, 60_000);

  it('sql and load take --author and --message, and the snapshot they commit records them', async () => {
    const dir = await tempDir();
    expect((await run('init', '--dir', dir)).code).toBe(0);
    const created = await run('sql', '--dir', dir, '--author', 'dba', 'CREATE TABLE t (id BIGINT, name VARCHAR)');
    expect(created.code, created.stderr).toBe(0);
    const file = path.join(await tempDir(), 'rows.csv');
    await writeFile(file, 'id,name\n1,a\n');
    expect((await run('load', '--dir', dir, '--author', 'etl', '--message', 'January', 't', file)).code).toBe(0);
    expect((await run('sql', '--dir', dir, '--message', 'fix a name', "UPDATE t SET name = 'b' WHERE id = 1")).code).toBe(0);
    const history = JSON.parse((await run('snapshots', '--dir', dir, '--json')).stdout) as { id: number; author: string | null; message: string | null }[];
    expect(history.filter((x) => x.id > 0).map((x) => [x.author, x.message]).sort()).toEqual([
      ['dba', 'CREATE TABLE t (id BIGINT, name VARCHAR)'],
      ['etl', 'January'],
      [null, 'fix a name'],
    ].sort());
    const select = await run('sql', '--dir', dir, '--author', 'me', 'SELECT 1');
    expect([select.code, select.stderr]).toEqual([1, 'strata: INVALID_ARGUMENT: author and message name the commit of a statement that writes; this statement is a SELECT, which commits nothing\n']);
  });

  it('restore and compact take --author and --message too', async () => {
    const dir = await tempDir();
    expect((await run('init', '--dir', dir)).code).toBe(0);
    expect((await run('sql', '--dir', dir, 'CREATE TABLE t (id BIGINT)')).code).toBe(0);
    for (let i = 0; i < 3; i++) expect((await run('sql', '--dir', dir, `INSERT INTO t VALUES (${i})`)).code).toBe(0);
    const compacted = await run('compact', '--dir', dir, '--author', 'ops', '--message', 'nightly', 't');
    expect(compacted.code, compacted.stderr).toBe(0);
    const restored = await run('restore', '--dir', dir, '--author', 'ops', '--message', 'undo the third', 'main.t', '3');
    expect(restored.code, restored.stderr).toBe(0);
    const history = JSON.parse((await run('snapshots', '--dir', dir, '--json')).stdout) as { id: number; author: string | null; message: string | null }[];
    expect(history.slice(0, 2).map((x) => [x.author, x.message])).toEqual([
      ['ops', 'undo the third'],
      ['ops', 'nightly'],
    ]);
  });

  it('the statement from a file or standard input, its values from --params; each mistake said with exit 2 and nothing run', async () => {
    const dir = await tempDir();
    expect((await run('init', '--dir', dir)).code).toBe(0);
    const file = path.join(await tempDir(), 'make.sql');
    await writeFile(file, 'CREATE TABLE people (\n  id BIGINT,\n  name VARCHAR\n);\n');
    expect((await run('sql', '--dir', dir, '-f', file)).code).toBe(0);
    const inserted = await runCliWith({ input: "INSERT INTO people\nVALUES ($1, $2), (2, 'it''s')" }, 'sql', '--dir', dir, '--params', '[1, "O\'Brien; DROP TABLE people"]', '-');
    expect(inserted.code, inserted.stderr).toBe(0);
    const named = await run('sql', '--dir', dir, '--json', '--params', '{"id": 1}', 'SELECT name FROM people WHERE id = $id');
    expect(JSON.parse(named.stdout)).toEqual([{ name: "O'Brien; DROP TABLE people" }]);
    const all = await run('sql', '--dir', dir, '--csv', 'SELECT id, name FROM people ORDER BY id');
    expect(all.stdout).toBe("id,name\n1,O'Brien; DROP TABLE people\n2,it's\n");
    const before = (await run('snapshots', '--dir', dir, '--json')).stdout;
    for (const [args, message] of [
      [['SELECT 1', '-f', file], 'give the statement as an argument or with --file, not both'],
      [[], "give a statement: strata sql 'SELECT …', strata sql --file query.sql, or strata sql - to read it from standard input"],
      [['-f', path.join(dir, 'nothing.sql')], `--file ${path.join(dir, 'nothing.sql')}: there is no such file`],
      [['--params', '[1,', 'SELECT $1'], /^--params is not JSON \(.*\): give a JSON array/],
      [['--params', '[[1]]', 'SELECT $1'], '--params $1 is a list; a parameter\'s value is one of null, true/false, numbers and strings (cast text in the statement: $1::DATE)'],
      [['--params', '{"n": 9007199254740993}', 'SELECT $n'], /^--params \$n is a whole number past 2\^53/],
      [['--params', '7', 'SELECT 1'], '--params is 7: give a JSON array for $1, $2, … or an object for $name'],
    ] as [string[], string | RegExp][]) {
      const r = await run('sql', '--dir', dir, ...args);
      expect(r.code, args.join(' ')).toBe(2);
      const said = r.stderr.replace(/^strata: /, '').trimEnd();
      if (typeof message === 'string') expect(said).toBe(message);
      else expect(said).toMatch(message);
    }
    expect((await run('snapshots', '--dir', dir, '--json')).stdout).toBe(before);
  }, 60_000);

  it('every type prints as DuckDB prints it: CSV as its CSV writer writes it, the table view as its casts, JSON exactly; changes too', async () => {
    const dir = await tempDir();
    expect((await run('init', '--dir', dir)).code).toBe(0);
    expect((await run('sql', '--dir', dir, `CREATE TABLE t (${EVERY_TYPE_COLUMNS.join(', ')})`)).code).toBe(0);
    const inserted = await run('sql', '--dir', dir, '--json', `INSERT INTO t VALUES ${EVERY_TYPE_ROWS.join(', ')}`);
    expect(JSON.parse(inserted.stdout), inserted.stderr).toEqual([{ Count: 3 }]);
    const names = EVERY_TYPE_COLUMNS.map((c) => c.split(' ')[0]!);

    // The model: a plain DuckDB with the same rows.
    const instance = await DuckDBInstance.create(':memory:');
    const m = await instance.connect();
    await m.run("SET TimeZone = 'UTC'");
    await m.run(`CREATE TABLE t (${EVERY_TYPE_COLUMNS.join(', ')})`);
    await m.run(`INSERT INTO t VALUES ${EVERY_TYPE_ROWS.join(', ')}`);
    const modelCsv = path.join(await tempDir(), 'model.csv');
    await m.run(`COPY (SELECT * FROM t ORDER BY n) TO '${modelCsv}' (HEADER)`);
    const texts = (await m.runAndReadAll(`SELECT ${names.map((n) => `${n}::VARCHAR AS ${n}`).join(', ')} FROM t ORDER BY n`)).getRowObjectsJS() as Record<string, string | null>[];
    m.closeSync();
    instance.closeSync();
    const csv = await readFile(modelCsv, 'utf8');

    const asCsv = await run('sql', '--dir', dir, '--csv', 'SELECT * FROM t ORDER BY n');
    expect(asCsv.stdout, asCsv.stderr).toBe(csv);
    // No rows: the header alone, as DuckDB writes it.
    expect((await run('sql', '--dir', dir, '--csv', 'SELECT * FROM t WHERE n < 0')).stdout).toBe(`${csv.split('\n')[0]}\n`);

    const asTable = await run('sql', '--dir', dir, 'SELECT * FROM t ORDER BY n');
    const lines = asTable.stdout.split('\n');
    const starts = [...lines[1]!.matchAll(/-+/g)].map((g) => g.index);
    const cells = (line: string) => starts.map((at, i) => line.slice(at, starts[i + 1]).trimEnd());
    expect(cells(lines[0]!)).toEqual(names);
    for (const [i, row] of texts.entries()) {
      // A newline in a value shows as \n in the table view, so that a row stays one line.
      expect(cells(lines[2 + i]!), `row ${i + 1}`).toEqual(names.map((n) => (row[n] === null ? 'NULL' : row[n]!.replaceAll('\n', '\\n'))));
    }
    expect(lines[5]).toMatch(/^\(3 rows, snapshot 2, \d+ ms\)$/);

    const asJson = JSON.parse((await run('sql', '--dir', dir, '--json', 'SELECT * FROM t ORDER BY n')).stdout) as Record<string, unknown>[];
    for (const n of ['dec', 'frac', 'd', 't', 'ttz', 'ts', 'tstz', 'ts_s', 'ts_ms', 'ts_ns', 'iv', 's', 'bl', 'id', 'doc']) {
      expect(asJson.map((r) => r[n]), n).toEqual(texts.map((r) => r[n]));
    }
    expect(asJson[0]).toMatchObject({ b: true, i8: -128, i32: -2147483648, i64: '-9223372036854775808', u64: 0, f32: 'nan', l: [], st: { a: '', b: [] }, m: [] });
    expect(Object.is(asJson[0]!.f64, -0)).toBe(true);
    expect(asJson[1]).toMatchObject({ i64: '9223372036854775807', u32: 4294967295, u64: '18446744073709551615', f32: 3.4028235e38, f64: 1.7976931348623157e308 });
    expect(asJson[1]).toMatchObject({ l: [1, null, 3], st: { a: 'x y', b: [1.5, 'nan', '-inf'] }, m: [{ key: 'k=v', value: '36:00:00' }, { key: 'null', value: null }] });
    expect(Object.values(asJson[2]!).filter((v) => v !== null)).toEqual([3]);

    // changes prints the same way: each CSV line is the insert's snapshot, the row id and the model's line.
    const changes = await run('changes', '--dir', dir, '--csv', 't', '2', '2');
    const [header, ...rows] = csv.trimEnd().split(/\n(?=\d)/);
    expect(changes.stdout, changes.stderr).toBe(`snapshot_id,rowid,change_type,${header}\n${rows.map((line, i) => `2,${i},insert,${line}`).join('\n')}\n`);
  }, 120_000);

  it('150,000 rows and 133,000 changes: the table view shows the first 100 and counts them all, --limit 0 every row; no stack overflow', async () => {
    const dir = await tempDir();
    expect((await run('init', '--dir', dir)).code).toBe(0);
    const big = await run('sql', '--dir', dir, 'SELECT i, i * 2 AS twice FROM range(150000) r(i)');
    expect(big.code, big.stderr).toBe(0);
    const lines = big.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(103);
    expect(lines[101]).toMatch(/^99\s+198$/);
    expect(lines[102]).toMatch(/^\(150,000 rows, \d+ ms; the first 100 shown: --limit N shows N \(0: all\), --csv and --json print every row\)$/);
    const all = await run('sql', '--dir', dir, '--limit', '0', 'SELECT i FROM range(150000) r(i)');
    expect(all.stdout.trimEnd().split('\n')).toHaveLength(150_003);
    expect((await run('sql', '--dir', dir, '--csv', '--limit', '5', 'SELECT 1')).stderr).toContain('--limit cuts the table view');

    expect((await run('sql', '--dir', dir, 'CREATE TABLE t (i BIGINT)')).code).toBe(0);
    expect((await run('sql', '--dir', dir, 'INSERT INTO t SELECT i FROM range(133000) r(i)')).code).toBe(0);
    const changed = await run('changes', '--dir', dir, 't', '1', '2');
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout.trimEnd().split('\n').at(-1)).toMatch(/^\(133,000 rows, snapshot 2, \d+ ms; the first 100 shown/);
  }, 120_000);
});

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Runs the CLI with its output read by `read`, which may stop reading; the exit code, stderr and the peak RSS (VmHWM). */
function runMeasured(args: string[], read: (chunk: Buffer, stop: () => void) => void): Promise<{ code: number | null; stderr: string; peakRssMiB: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', tsx, main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let peak = 0;
    const status = `/proc/${child.pid}/status`;
    const poll = setInterval(() => {
      try {
        peak = Math.max(peak, Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(status, 'utf8'))?.[1] ?? 0));
      } catch {
        // gone
      }
    }, 50);
    const kill = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => read(d, () => child.stdout.destroy()));
    child.on('exit', (code) => {
      clearInterval(poll);
      clearTimeout(kill);
      resolve({ code, stderr, peakRssMiB: peak / 1024 });
    });
  });
}

describe('results streamed', () => {
  it('a million rows as CSV in flat memory (peak RSS under 300 MiB), every row in order', async () => {
    const dir = await tempDir();
    expect((await run('init', '--dir', dir)).code).toBe(0);
    let lines = 0;
    let last = '';
    const r = await runMeasured(['sql', '--dir', dir, '--csv', "SELECT i, 'row ' || i AS s, i / 7 AS q FROM range(1000000) r(i) ORDER BY i"], (chunk) => {
      const text = chunk.toString();
      lines += text.split('\n').length - 1;
      last = (last + text).slice(-200);
    });
    expect(r.code, r.stderr).toBe(0);
    expect(lines).toBe(1_000_001);
    expect(last.trimEnd().split('\n').at(-1)).toBe('999999,row 999999,142857.0');
    expect(r.peakRssMiB).toBeLessThan(300);
  }, 120_000);

  it('a reader that stops early ends the command at once, quietly, with the catalog closed (its index sealed)', async () => {
    const dir = await tempDir();
    expect((await run('init', '--dir', dir)).code).toBe(0);
    const started = performance.now();
    const r = await runMeasured(['sql', '--dir', dir, '--csv', 'SELECT i FROM range(100000000) r(i)'], (_chunk, stop) => stop());
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(performance.now() - started).toBeLessThan(60_000);
    expect(existsSync(path.join(dir, 'index', 'STRATA-SEAL'))).toBe(true);
  }, 120_000);
});
