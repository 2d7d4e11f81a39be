// A Strata table read as an Iceberg table by a reader nobody here wrote (icebird: metadata, Avro manifests and
// Parquet by field id), at the newest snapshot and an older one, against catalog.sql at the same snapshots; and
// every Avro file written decoded by Debian's avrocat.
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { icebergRead } from 'icebird';
import { describe, expect, it } from 'vitest';
import { expectCode, openCatalog } from '../helpers.js';
import { fetchFileUrls } from '../support/file-fetch.js';

fetchFileUrls();

/**
 * Rows as plain values sorted by id, to compare icebird's with catalog.sql's: icebird gives a BIGINT as a bigint,
 * a DATE as a Date at midnight UTC and a column a file lacks as undefined; catalog.sql a number, DuckDB's text
 * and null.
 */
const plainValue = (v: unknown) => (typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.toISOString().slice(0, 10) : v === undefined ? null : v);
const plain = (rows: Record<string, unknown>[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plainValue(v)]))).sort((a, b) => Number(a.id) - Number(b.id));

async function avroFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile() && e.name.endsWith('.avro')) out.push(join(e.parentPath, e.name));
  return out;
}

describe('a Strata table as an Iceberg table', () => {
  it('reads in icebird as catalog.sql answers, at the head and at an older snapshot', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR, score DOUBLE, day DATE)');
    await c.sql(`INSERT INTO t VALUES (1, 'a', 1.5, DATE '2024-01-01'), (2, 'b', NULL, DATE '2024-01-02')`);
    const first = (await c.sql('SELECT 1 FROM t')).snapshot!;
    await c.sql(`INSERT INTO t VALUES (3, 'c', 3.5, DATE '2024-02-01')`);
    await c.sql('ALTER TABLE t ADD COLUMN extra INTEGER');
    await c.sql(`INSERT INTO t VALUES (4, 'd', 4.5, DATE '2024-03-01', 7)`);

    await c.sql('DELETE FROM t WHERE id = 2');
    const deleted = (await c.sql('SELECT 1 FROM t')).snapshot!;
    await c.createTag('after-delete', deleted);
    await c.sql(`UPDATE t SET name = 'C' WHERE id = 3`);

    const head = await c.iceberg('main', 't');
    expect(head.metadata['current-snapshot-id']).toBe((await c.sql('SELECT 1 FROM t')).snapshot);
    expect(head.metadata.snapshots.map((s) => s.summary.operation)).toEqual(['append', 'append', 'append', 'delete', 'overwrite']);
    expect(head.metadata.refs).toEqual({ main: { 'snapshot-id': head.metadata['current-snapshot-id'], type: 'branch' }, 'after-delete': { 'snapshot-id': deleted, type: 'tag' } });
    const read = await icebergRead({ tableUrl: head.metadata.location, metadata: head.metadata as never });
    expect(plain(read)).toEqual(plain((await c.sql('SELECT * FROM t')).rows));

    const old = await c.iceberg('main', 't', { snapshot: first });
    expect(old.metadata['current-snapshot-id']).toBe(first);
    expect(old.metadata.schemas.map((s) => s.fields.map((f) => f.name))).toEqual([['id', 'name', 'score', 'day']]);
    const oldRows = await icebergRead({ tableUrl: old.metadata.location, metadata: old.metadata as never });
    expect(plain(oldRows)).toEqual(plain((await c.sql(`SELECT * FROM t AT (VERSION => ${first})`)).rows));

    const tagged = await c.iceberg('main', 't', { tag: 'after-delete' });
    const taggedRows = await icebergRead({ tableUrl: tagged.metadata.location, metadata: tagged.metadata as never });
    expect(plain(taggedRows)).toEqual(plain((await c.sql(`SELECT * FROM t AT (VERSION => 'after-delete')`)).rows));
    expect(plain(taggedRows).map((r) => r.id)).toEqual([1, 3, 4]);

    const metadataFile = fileURLToPath(head.metadataLocation);
    expect(JSON.parse(await readFile(metadataFile, 'utf8'))).toEqual(head.metadata);
    const files = await avroFiles(metadataFile.slice(0, metadataFile.indexOf('/iceberg/') + '/iceberg/'.length));
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const f of files) expect(() => execFileSync('avrocat', [f], { stdio: 'pipe' }), f).not.toThrow();
  });

  it('refuses a table with a column Iceberg has no type for, naming it', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE u (id BIGINT, n UINTEGER)');
    await c.sql('INSERT INTO u VALUES (1, 2)');
    await expectCode(c.iceberg('main', 'u'), 'INVALID_ARGUMENT', /its column n is uint32/);
    await expectCode(c.iceberg('main', 'nope'), 'NOT_FOUND');
  });

  it('serves a snapshot again without writing, and anew when a tag or the horizon changes what it holds', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id BIGINT)');
    for (let i = 0; i < 4; i++) await c.sql(`INSERT INTO t VALUES (${i})`);
    const ids = (await c.snapshots()).map((s) => s.id as number);
    const [second, head] = [ids.at(-3)!, ids.at(-1)!];
    const first = await c.iceberg('main', 't');
    const objects = async () => (await readdir(join(fileURLToPath(first.metadataLocation), '..', '..'), { recursive: true })).length;
    const written = await objects();

    first.metadata.snapshots.length = 0;
    const again = await c.iceberg('main', 't');
    expect(again.metadata.snapshots.map((s) => s['snapshot-id'])).toEqual(ids.slice(-4));
    expect(again.metadataLocation).toBe(first.metadataLocation);
    expect(await objects()).toBe(written);

    await c.createTag('second', second);
    const tagged = await c.iceberg('main', 't');
    expect(tagged.metadata.refs.second).toEqual({ 'snapshot-id': second, type: 'tag' });
    expect(tagged.metadataLocation).not.toBe(first.metadataLocation);

    // Below the horizon only the tagged snapshot still reads: it stays an Iceberg snapshot, with its rows.
    await c.advanceRetainFrom({ snapshot: head });
    await c.excise();
    const later = await c.iceberg('main', 't');
    expect(later.metadata.snapshots.map((s) => s['snapshot-id'])).toEqual([second, head]);
    expect(later.metadata.refs.second).toEqual({ 'snapshot-id': second, type: 'tag' });
    const m = later.metadata;
    const rows = await icebergRead({ tableUrl: m.location, metadata: { ...m, 'current-snapshot-id': second } as never });
    expect(plain(rows)).toEqual(plain((await c.sql(`SELECT * FROM t AT (VERSION => 'second')`)).rows));
  });

  it('reads a renamed column in icebird from the files written before the rename: each footer names its columns\' ids', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE r (id BIGINT, old_name VARCHAR)');
    await c.sql(`INSERT INTO r VALUES (1, 'a'), (2, 'b')`);
    await c.sql('ALTER TABLE r RENAME COLUMN old_name TO new_name');
    await c.sql(`INSERT INTO r VALUES (3, 'c')`);
    const r = await c.reader();
    const [first] = await r.dataFiles('main', 'r');
    await r.close();
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const footer = (await duck.runAndReadAll(`SELECT decode(value) AS v FROM parquet_kv_metadata('${c.dataFileLocation(first!.path)}') WHERE decode(key) = 'iceberg.schema'`)).getRowObjectsJS();
    duck.closeSync();
    expect(JSON.parse(String(footer[0]!.v)).fields.map((f: { id: number; name: string }) => [f.id, f.name])).toEqual([[1, 'id'], [2, 'old_name']]);
    const { metadata } = await c.iceberg('main', 'r');
    const rows = await icebergRead({ tableUrl: metadata.location, metadata: metadata as never });
    expect(plain(rows)).toEqual(plain((await c.sql('SELECT * FROM r')).rows));
  });
});
