// Core rates for the walking skeleton (the full suite against DuckLake-on-SQLite is issue 3):
//   - commit one data file into one of 1,000 tables (durable: fsync'd log object), vs a raw LevelDB batch
//     of the same mutations (fsync'd, and not);
//   - resolve table(schema, name) with its columns at a random old snapshot, in a catalog of 1,000 tables
//     with 10 versions each, vs raw LevelDB reads of the same keys (the seeks the resolution makes).
// Usage: npm run bench [-- --tables 1000 --versions 10 --commits 500 --lookups 20000]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Level } from 'level';
import { Catalog, type Reader } from '../src/index.js';
import { encodeKey, keyPrefix } from '../keys/key-codec.js';
import { Tag } from '../keys/tags.js';
import { encodeValue } from '../keys/value-codec.js';

const { values } = parseArgs({
  options: {
    tables: { type: 'string', default: '1000' },
    versions: { type: 'string', default: '10' },
    commits: { type: 'string', default: '500' },
    lookups: { type: 'string', default: '20000' },
  },
});
const TABLES = Number(values.tables);
const VERSIONS = Number(values.versions);
const COMMITS = Number(values.commits);
const LOOKUPS = Number(values.lookups);

function stats(samplesNs: number[]) {
  const sorted = [...samplesNs].sort((a, b) => a - b);
  const total = sorted.reduce((a, b) => a + b, 0);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! / 1e3;
  return { opsPerSec: Math.round(sorted.length / (total / 1e9)), p50us: q(0.5), p99us: q(0.99) };
}

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn(i);
    out.push(Number(process.hrtime.bigint() - t));
  }
  return out;
}

let seed = 42;
const rand = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed % n;
};

const root = await mkdtemp(path.join(tmpdir(), 'strata-bench-'));
const results: Record<string, ReturnType<typeof stats>> = {};
try {
  // ---- build: 1,000 tables, then VERSIONS-1 renames of each, 100 tables per commit
  const catalog = await Catalog.open({ dir: path.join(root, 'catalog') });
  const names: { snapshot: number; name: string }[][] = Array.from({ length: TABLES }, () => []);
  const t0 = Date.now();
  for (let v = 0; v < VERSIONS; v++) {
    for (let start = 0; start < TABLES; start += 100) {
      const { snapshot } = await catalog.transaction(async (tx) => {
        for (let i = start; i < Math.min(TABLES, start + 100); i++) {
          if (v === 0) await tx.createTable('main', `t${i}_v0`, [{ name: 'id', type: 'int64' }, { name: 'payload', type: 'varchar' }]);
          else await tx.renameTable('main', `t${i}_v${v - 1}`, `t${i}_v${v}`);
        }
      });
      for (let i = start; i < Math.min(TABLES, start + 100); i++) names[i]!.push({ snapshot: snapshot!, name: `t${i}_v${v}` });
    }
  }
  console.log(`built ${TABLES} tables x ${VERSIONS} versions in ${Date.now() - t0} ms`);

  // ---- commit one data file into a random table
  results['strata: commit 1 data file (fsync)'] = stats(
    await timed(COMMITS, (i) =>
      catalog.transaction(async (tx) => {
        const t = names[rand(TABLES)]!.at(-1)!.name;
        await tx.addDataFile('main', t, { path: `bench/${i}.parquet`, recordCount: 1000, fileSizeBytes: 65536 });
      }),
    ),
  );

  // ---- resolve table(schema, name) at a random old snapshot
  const readers = new Map<number, Reader>();
  const readerAt = async (s: number) => {
    let r = readers.get(s);
    if (!r) readers.set(s, (r = await catalog.reader({ snapshot: s })));
    return r;
  };
  for (const v of names[0]!.keys()) for (let start = 0; start < TABLES; start += 100) await readerAt(names[start]![v]!.snapshot);
  const lookups = Array.from({ length: LOOKUPS }, () => {
    const versions = names[rand(TABLES)]!;
    return versions[rand(versions.length)]!;
  });
  results['strata: table(schema, name) at an old snapshot'] = stats(
    await timed(LOOKUPS, async (i) => {
      const { snapshot, name } = lookups[i]!;
      const t = await (await readerAt(snapshot)).table('main', name);
      if (t.columns.length !== 2) throw new Error('wrong answer');
    }),
  );
  results['strata: open reader + table() + close'] = stats(
    await timed(Math.min(LOOKUPS, 5000), async (i) => {
      const { snapshot, name } = lookups[i]!;
      const r = await catalog.reader({ snapshot });
      await r.table('main', name);
      await r.close();
    }),
  );
  for (const r of readers.values()) await r.close();
  await catalog.close();

  // ---- the raw limit: the same shapes of keys and values through classic-level, no catalog logic
  const db = new Level<Uint8Array, Uint8Array>(path.join(root, 'raw'), { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  const row = encodeValue({ path: 'bench/0.parquet', format: 'parquet', recordCount: 1000, fileSizeBytes: 65536, footerSize: null, rowIdStart: 0, end: null });
  const commitBatch = (i: number) => [
    { type: 'put' as const, key: encodeKey(Tag.DataFile, [i % TABLES, i], i), value: row },
    { type: 'put' as const, key: encodeKey(Tag.FileTableIndex, [i], i), value: row },
    { type: 'put' as const, key: encodeKey(Tag.TableStats, [i % TABLES]), value: row },
    { type: 'put' as const, key: encodeKey(Tag.Snapshot, [], i), value: row },
    { type: 'put' as const, key: encodeKey(Tag.SnapshotChanges, [], i), value: row },
  ];
  results['raw LevelDB: batch of a commit\'s 5 puts (sync)'] = stats(await timed(COMMITS, (i) => db.batch(commitBatch(i), { sync: true })));
  results['raw LevelDB: batch of a commit\'s 5 puts (no sync)'] = stats(
    await timed(COMMITS, (i) => db.batch(commitBatch(COMMITS + i), { sync: false })),
  );
  // Fill the keyspace like the catalog above: VERSIONS versions per table and per name-index entry.
  for (let i = 0; i < TABLES; i++) {
    const batch = [];
    for (let v = 0; v < VERSIONS; v++) {
      batch.push({ type: 'put' as const, key: encodeKey(Tag.Table, [i], v + 1), value: row });
      batch.push({ type: 'put' as const, key: encodeKey(Tag.RelationNameIndex, [0, `t${i}_v${v}`], v + 1), value: row });
    }
    batch.push({ type: 'put' as const, key: encodeKey(Tag.Column, [i, 1], 1), value: row });
    batch.push({ type: 'put' as const, key: encodeKey(Tag.Column, [i, 2], 1), value: row });
    await db.batch(batch);
  }
  const snap = db.snapshot();
  results['raw LevelDB: get of one key'] = stats(
    await timed(LOOKUPS, (i) => db.get(encodeKey(Tag.Table, [rand(TABLES)], (i % VERSIONS) + 1), { snapshot: snap })),
  );
  // The resolution's shape: 3 reverse seeks (schema name, relation name, table row) + a 2-row column scan.
  const seek = async (gte: Uint8Array, lte: Uint8Array) => {
    const it = db.iterator({ gte, lte, reverse: true, limit: 1, snapshot: snap });
    await it.next();
    await it.close();
  };
  results['raw LevelDB: 3 reverse seeks + 2-key scan'] = stats(
    await timed(LOOKUPS, async (i) => {
      const t = rand(TABLES);
      const v = (i % VERSIONS) + 1;
      await seek(keyPrefix(Tag.SchemaNameIndex, ['main']), encodeKey(Tag.SchemaNameIndex, ['main'], v));
      await seek(keyPrefix(Tag.RelationNameIndex, [0, `t${t}_v${v - 1}`]), encodeKey(Tag.RelationNameIndex, [0, `t${t}_v${v - 1}`], v));
      await seek(keyPrefix(Tag.Table, [t]), encodeKey(Tag.Table, [t], v));
      const it = db.iterator({ gte: keyPrefix(Tag.Column, [t]), lt: keyPrefix(Tag.Column, [t + 1]), snapshot: snap });
      await it.nextv(100);
      await it.close();
    }),
  );
  await snap.close();
  await db.close();

  console.log(`\nmachine: ${(await import('node:os')).cpus().length} cores, node ${process.version}, ${new Date().toISOString()}`);
  console.log('| operation | ops/s | p50 µs | p99 µs |\n| --- | ---: | ---: | ---: |');
  for (const [name, s] of Object.entries(results)) console.log(`| ${name} | ${s.opsPerSec} | ${s.p50us.toFixed(1)} | ${s.p99us.toFixed(1)} |`);
} finally {
  await rm(root, { recursive: true, force: true });
}
