// A SELECT checks a file's bytes the first time a process reads it while DuckDB reads it (decision 0013), and
// holds its answer back until the check has passed; a write checks before DuckDB reads. So a flip DuckDB
// decodes into a different answer, and one it fails on, are both the check's CORRUPT on every read path,
// and no write commits anything made from the file.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Catalog, type SnapshotId } from '../../src/index.js';
import { expectCode } from '../helpers.js';

const q = 'SELECT count(*)::INT AS n, sum(id)::BIGINT AS total, max(s) AS last FROM t';
/** The check's own words (local-files.ts): not DuckDB's error about the same file. */
const checkSaid = (file: string) => new RegExp(`${file.replace('.', '\\.')}, a file the catalog names, is not the file it recorded`);

const bigints = (_k: string, v: unknown) => (typeof v === 'bigint' ? String(v) : v);

async function collect(batches: AsyncGenerator<{ rows: unknown[] }>): Promise<unknown[]> {
  const rows: unknown[] = [];
  for await (const b of batches) rows.push(...b.rows);
  return rows;
}

/** What DuckDB alone answers over the file's bytes: its rows, or its error. */
async function duckdbAnswer(file: string): Promise<unknown> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    return (await c.runAndReadAll(q.replace('FROM t', `FROM read_parquet('${file}')`))).getRowObjectsJS();
  } catch (e) {
    return e;
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

let dir: string;
let file: string;
let good: Buffer;
let added: SnapshotId;
let expected: unknown[];

// One catalog for the whole file (the helpers' directories go after each test): each test damages its file.
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'strata-test-'));
  const c = await Catalog.open({ dir });
  await c.sql('CREATE TABLE t (id BIGINT, s VARCHAR)');
  await c.sql('CREATE TABLE u (id BIGINT, s VARCHAR)');
  const r = await c.reader();
  const ids = (await r.table('main', 't')).columns.map((col) => `${col.name}: ${col.id}`).join(', ');
  await r.close();
  // Uncompressed, so that most flips inside a page still decode: into other values.
  const db = await DuckDBInstance.create(':memory:');
  const d = await db.connect();
  const names = ['plain.parquet', 'other.parquet'];
  await mkdir(path.join(dir, 'store', c.dataPath), { recursive: true });
  for (const [i, name] of names.entries()) {
    const local = path.join(dir, 'store', c.dataPath, name);
    await d.run(`COPY (SELECT r AS id, 'row ' || r AS s FROM range(${i * 1000}, ${(i + 1) * 1000}) t(r)) TO '${local}' (FORMAT parquet, COMPRESSION uncompressed, FIELD_IDS {${ids}})`);
  }
  d.closeSync();
  db.closeSync();
  const { snapshot } = await c.transaction(async (tx) => {
    for (const name of names) {
      const bytes = await readFile(path.join(dir, 'store', c.dataPath, name));
      await tx.addDataFile('main', 't', { path: name, recordCount: 1000, fileSizeBytes: bytes.length, contentCrc32: crc32(bytes) });
    }
  });
  added = snapshot!;
  expected = (await c.sql(q)).rows;
  await c.close();
  file = path.join(dir, 'store', 'data', 'plain.parquet');
  good = await readFile(file);
}, 60_000);

afterAll(() => rm(dir, { recursive: true, force: true }));

/** Each way a catalog reads the file, on a catalog opened afresh (so this process has not checked it yet). */
const reads: [string, (c: Catalog) => Promise<unknown>][] = [
  ['sql', async (c) => (await c.sql(q)).rows],
  ['sqlBatches', (c) => collect(c.sqlBatches(q))],
  ['tableChanges', async (c) => (await c.tableChanges('main', 't', { from: added, to: added })).rows.length],
  ['tableChangesBatches', async (c) => (await collect(c.tableChangesBatches('main', 't', { from: added, to: added }))).length],
  ['tx.sql', (c) => c.transaction(async (tx) => (await tx.sql(q)).rows).then(() => 'committed')],
];

/** Each write that reads the file; each must commit nothing when the file is damaged. */
const writes: [string, (c: Catalog) => Promise<unknown>][] = [
  ['INSERT … SELECT', (c) => c.sql('INSERT INTO u SELECT * FROM t')],
  ['UPDATE', (c) => c.sql(`UPDATE t SET s = 'x' WHERE id < 10`)],
  ['DELETE', (c) => c.sql('DELETE FROM t WHERE id = 5')],
  ['compact', (c) => c.compact('main', 't')],
];

async function onFreshCatalog<T>(work: (c: Catalog) => Promise<T>): Promise<{ got: T; headBefore: SnapshotId; headAfter: SnapshotId }> {
  const c = await Catalog.open({ dir });
  try {
    const head = async () => {
      const r = await c.reader();
      await r.close();
      return r.snapshot.id;
    };
    const headBefore = await head();
    const got = await work(c).catch((e: unknown) => e as T);
    return { got, headBefore, headAfter: await head() };
  } finally {
    await c.close();
  }
}

describe('the first-read check beside DuckDB', () => {
  afterEach(() => writeFile(file, good));

  it('a flip DuckDB reads as other rows is the check\'s CORRUPT on every read path, and no write commits', { timeout: 120_000 }, async () => {
    const intact = await duckdbAnswer(file);
    let silent: number | undefined;
    for (let i = Math.floor(good.length / 4); i < good.length && silent === undefined; i += 7) {
      const bad = Buffer.from(good);
      bad[i] = bad[i]! ^ 0x01;
      await writeFile(file, bad);
      const answer = await duckdbAnswer(file);
      if (Array.isArray(answer) && JSON.stringify(answer, bigints) !== JSON.stringify(intact, bigints)) silent = i;
    }
    expect(silent, 'a flip that DuckDB decodes into a different answer').toBeDefined();
    for (const [name, read] of reads) {
      const { got, headBefore, headAfter } = await onFreshCatalog(read);
      expect(got, `${name} answered from a damaged file`).toBeInstanceOf(Error);
      await expectCode(Promise.reject(got), 'CORRUPT', checkSaid('plain.parquet'));
      expect(headAfter, name).toBe(headBefore);
    }
    for (const [name, w] of writes) {
      const { got, headBefore, headAfter } = await onFreshCatalog(w);
      expect(got, name).toBeInstanceOf(Error);
      await expectCode(Promise.reject(got), 'CORRUPT', checkSaid('plain.parquet'));
      expect(headAfter, `${name} committed from a damaged file`).toBe(headBefore);
    }
  });

  it('a flip DuckDB fails on is still the check\'s CORRUPT, not DuckDB\'s error', { timeout: 60_000 }, async () => {
    const bad = Buffer.from(good);
    bad[good.length - 1] = bad[good.length - 1]! ^ 0x01; // the closing magic bytes
    await writeFile(file, bad);
    expect(await duckdbAnswer(file)).toBeInstanceOf(Error);
    for (const [, read] of [...reads, ...writes]) {
      const { got } = await onFreshCatalog(read);
      await expectCode(Promise.reject(got), 'CORRUPT', checkSaid('plain.parquet'));
    }
  });

  it('the file intact reads as before on every path', { timeout: 60_000 }, async () => {
    const { got } = await onFreshCatalog(reads[0]![1]);
    expect(got).toEqual(expected);
    expect((await onFreshCatalog(reads[1]![1])).got).toEqual(expected);
    expect((await onFreshCatalog(reads[2]![1])).got).toBe(2000);
    expect((await onFreshCatalog(reads[3]![1])).got).toBe(2000);
    expect((await onFreshCatalog(reads[4]![1])).got).toBe('committed');
  });
});
