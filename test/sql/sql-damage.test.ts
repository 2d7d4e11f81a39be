// Bytes flipped in a data or delete file the catalog wrote. Parquet pages carry no checksum DuckDB checks, so
// a flip inside a page that still decodes would change the answer: the catalog records each file's CRC-32
// when it writes the file and checks it the first time a process reads the file. Every flip is CORRUPT naming
// the file, never a different answer; the file back intact reads as before.
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Catalog, isStrataError } from '../../src/index.js';
import { expectCode, openCatalog, tempDir } from '../helpers.js';

const q = `SELECT count(*) AS n, sum(id) AS total, max(s) AS last FROM t`;

async function answer(dir: string): Promise<unknown> {
  const c = await Catalog.open({ dir, readOnly: true });
  try {
    return await c.sql(q).then(
      (r) => r.rows,
      (e: unknown) => e,
    );
  } finally {
    await c.close();
  }
}

describe('a damaged data file', () => {
  it('every byte flip in a data or delete file is CORRUPT naming the file, in a process reading it for the first time', { timeout: 240_000 }, async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.sql('CREATE TABLE t (id BIGINT, s VARCHAR)');
    await c.sql(`INSERT INTO t SELECT i, 'row ' || i FROM range(1000) r(i)`);
    await c.sql('DELETE FROM t WHERE id % 7 = 0');
    const r = await c.reader();
    const [data] = await r.dataFiles('main', 't');
    const [del] = await r.deleteFiles('main', 't');
    await r.close();
    expect(data!.contentCrc32).toBe(crc32(await readFile(path.join(dir, 'store', c.dataPath, data!.path))));
    expect(del!.contentCrc32).toBe(crc32(await readFile(path.join(dir, 'store', c.dataPath, del!.path))));
    const expected = (await c.sql(q)).rows;
    await c.close();
    for (const file of [data!.path, del!.path]) {
      const local = path.join(dir, 'store', 'data', file);
      const good = await readFile(local);
      const step = Math.max(1, Math.floor(good.length / 60));
      let flips = 0;
      for (let i = 0; i < good.length; i += step) {
        const bad = Buffer.from(good);
        bad[i] = bad[i]! ^ 0x10;
        await writeFile(local, bad);
        const got = await answer(dir);
        expect(isStrataError(got, 'CORRUPT'), `byte ${i} of ${file}: ${String(got)}`).toBe(true);
        expect((got as Error).message).toContain(file);
        flips++;
      }
      expect(flips).toBeGreaterThan(30);
      await writeFile(local, good);
      expect(await answer(dir)).toEqual(expected);
    }
  });

  it('a file an engine registers is checked against the CRC-32 and the size it gives; without a CRC, the size alone', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.sql('CREATE TABLE t (id BIGINT, s VARCHAR)');
    await c.sql(`INSERT INTO t SELECT i, 'x' FROM range(10) r(i)`);
    const r = await c.reader();
    const [f] = await r.dataFiles('main', 't');
    await r.close();
    const bytes = await readFile(path.join(dir, 'store', c.dataPath, f!.path));
    for (const [name, extra] of [
      ['wrong-crc.parquet', { contentCrc32: (crc32(bytes) + 1) >>> 0 }],
      ['no-crc.parquet', {}],
    ] as const) {
      await writeFile(path.join(dir, 'store', c.dataPath, name), bytes);
      await c.transaction(async (tx) => {
        await tx.createTable('main', name.replace(/\W/g, '_'), [
          { name: 'id', type: 'int64' },
          { name: 's', type: 'varchar' },
        ]);
        await tx.addDataFile('main', name.replace(/\W/g, '_'), { path: name, recordCount: 10, fileSizeBytes: bytes.length, ...extra });
      });
    }
    await expectCode(c.sql('SELECT count(*) FROM wrong_crc_parquet'), 'CORRUPT', /wrong-crc\.parquet.*CRC-32/s);
    expect((await c.sql('SELECT count(*)::INT AS n FROM no_crc_parquet')).rows).toEqual([{ n: 10 }]);
    await c.transaction((tx) => tx.addDataFile('main', 'no_crc_parquet', { path: 'no-crc.parquet', recordCount: 10, fileSizeBytes: bytes.length + 1 }).then(() => undefined));
    await c.close();
    const again = await openCatalog({ dir });
    await expectCode(again.sql('SELECT count(*) FROM no_crc_parquet'), 'CORRUPT', /no-crc\.parquet.*bytes/s);
    await expectCode(
      again.transaction((tx) => tx.addDataFile('main', 't', { path: 'x.parquet', recordCount: 1, fileSizeBytes: 1, contentCrc32: -1 }).then(() => undefined)),
      'INVALID_ARGUMENT',
      /contentCrc32/,
    );
    const v = await again.verify({ files: true });
    expect(v.violations.map((x) => x.object?.split('/').pop())).toEqual(expect.arrayContaining(['wrong-crc.parquet']));
    expect(v.violations.find((x) => x.object?.endsWith('wrong-crc.parquet'))!.message).toMatch(/CRC-32/);
  });

  it('a damaged footer in a file registered without a CRC-32 is CORRUPT (naming the file where DuckDB does), never a mistake of the caller', { timeout: 240_000 }, async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.sql('CREATE TABLE t (id BIGINT, s VARCHAR)');
    await c.sql(`INSERT INTO t SELECT i, 'row ' || i FROM range(100) r(i)`);
    const r = await c.reader();
    const [f] = await r.dataFiles('main', 't');
    await r.close();
    const good = await readFile(path.join(dir, 'store', c.dataPath, f!.path));
    // The footer: Thrift metadata, its 4-byte length, then PAR1. Without a CRC, only DuckDB can notice a flip.
    const footer = good.length - 8 - good.readUInt32LE(good.length - 8);
    const codes = new Map<string, number>();
    for (let i = footer; i < good.length; i += 3) {
      const bad = Buffer.from(good);
      bad[i] = bad[i]! ^ 0x01;
      const name = `flip-${i}.parquet`;
      await writeFile(path.join(dir, 'store', c.dataPath, name), bad);
      const table = `flip_${i}`;
      await c.transaction(async (tx) => {
        await tx.createTable('main', table, [{ name: 'id', type: 'int64' }, { name: 's', type: 'varchar' }]);
        await tx.addDataFile('main', table, { path: name, recordCount: 100, fileSizeBytes: bad.length });
      });
      const got = await c.sql(`SELECT count(*), sum(id), max(s) FROM ${table}`).then(
        () => 'answered',
        (e: unknown) => (isStrataError(e) ? e.code : String(e)),
      );
      codes.set(got, (codes.get(got) ?? 0) + 1);
    }
    expect([...codes.keys()].filter((code) => code !== 'answered' && code !== 'CORRUPT')).toEqual([]);
    expect(codes.get('CORRUPT')).toBeGreaterThan(10);
    // The length of the footer and its first bytes: DuckDB names the file for one, not for the other.
    for (const [at, named] of [[good.length - 6, true], [footer, false]] as const) {
      const bad = Buffer.from(good);
      bad[at] = bad[at]! ^ 0x01;
      await writeFile(path.join(dir, 'store', c.dataPath, `flip-${at}.parquet`), bad);
      const name = `at_${at}`;
      await c.transaction(async (tx) => {
        await tx.createTable('main', name, [{ name: 'id', type: 'int64' }, { name: 's', type: 'varchar' }]);
        await tx.addDataFile('main', name, { path: `flip-${at}.parquet`, recordCount: 100, fileSizeBytes: bad.length });
      });
      await expectCode(c.sql(`SELECT count(*) FROM ${name}`), 'CORRUPT', named ? new RegExp(`flip-${at}\\.parquet cannot be decoded as Parquet`) : /^a data or delete file cannot be decoded as Parquet/);
    }
  });
});
