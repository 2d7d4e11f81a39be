// `strata load` and `strata sql`: a file loaded from the command line, and queries at a tag and at an id as
// an aligned table, JSON and CSV.
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { Catalog } from '../../src/index.js';
import { tempDir } from '../helpers.js';

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
  }, 60_000);
});
