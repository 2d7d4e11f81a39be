// The CLI as a careless user and a cron job meet it: a mistyped --dir, --force on the wrong directory, a dry
// run that must tell what the real run does, names made to fool a terminal.
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runCliWith } from './support/run-cli.js';
import { Catalog } from '../src/index.js';
import { tempDir } from './helpers.js';
import { canMountReadOnly, whileReadOnly } from './support/read-only-mount.js';

const run = runCli;

describe('strata CLI, carelessly', () => {
  it('commands other than init refuse a directory with no catalog and create nothing; init creates one', async () => {
    const base = await tempDir();
    const typo = path.join(base, 'lakee');
    for (const args of [['excise'], ['reclaim', '--grace', '0s'], ['gc', '--keep', '1d'], ['snapshots'], ['verify'], ['checkpoint']]) {
      const r = await run(...args, '--dir', typo);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(/NOT_FOUND: there is no catalog in .*lakee; nothing was created \(strata init --dir/);
      expect(existsSync(typo), args.join(' ')).toBe(false);
    }
    // An existing but empty directory stays empty.
    await mkdir(typo);
    expect((await run('excise', '--dir', typo)).code).toBe(1);
    expect(await readdir(typo)).toEqual([]);
    expect((await run('init', '--dir', typo)).stdout).toContain('catalog ready');
    expect((await run('excise', '--dir', typo)).code).toBe(0);
  }, 60_000);

  it('init on a directory that cannot hold one (/proc/self) fails at once instead of hanging', async () => {
    const r = await run('init', '--dir', '/proc/self');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('takes no new entries');
  });

  it('demo --force replaces only a directory holding a demo it made', async () => {
    const base = await tempDir();
    const docs = path.join(base, 'docs');
    await mkdir(docs);
    await writeFile(path.join(docs, 'thesis.txt'), 'four years');
    for (const args of [['demo', '--dir', docs, '--force'], ['demo', '--dir', docs]]) {
      const r = await run(...args);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/ALREADY_EXISTS: .*thesis\.txt.* not a directory strata demo made/);
    }
    expect(await readdir(docs)).toEqual(['thesis.txt']);
    // A demo's own directory (and its -gc copy) is replaced, again and again.
    const lake = path.join(base, 'lake');
    expect((await run('demo', '--dir', lake, '--force')).code).toBe(0);
    const again = await run('demo', '--dir', lake, '--force');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('GC, on a copy');
    // The -gc copy is the demo's too; a directory of that name that is not, is left alone.
    const other = path.join(base, 'mine');
    await mkdir(`${other}-gc`);
    await writeFile(path.join(`${other}-gc`, 'keep.txt'), 'mine');
    expect((await run('demo', '--dir', other)).stderr).toContain('ALREADY_EXISTS');
    expect(await readdir(`${other}-gc`)).toEqual(['keep.txt']);
  }, 120_000);

  it('gc --dry-run tells what the real run deletes, files excision schedules in the same run included', async () => {
    const dir = await tempDir();
    const c = await Catalog.open({ dir });
    const paths = Array.from({ length: 30 }, (_, i) => `t/f${i}.parquet`);
    for (const p of paths) {
      await mkdir(path.join(dir, 'store', 'data', 't'), { recursive: true });
      await writeFile(path.join(dir, 'store', 'data', p), 'x');
    }
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int32' }]));
    const ids: number[] = [];
    await c.transaction(async (tx) => {
      for (const p of paths) ids.push(await tx.addDataFile('main', 't', { path: p, recordCount: 1, fileSizeBytes: 1 }));
    });
    await c.transaction(async (tx) => {
      for (const id of ids.slice(0, 20)) await tx.removeDataFile('main', 't', id);
    });
    await c.close();
    const args = ['gc', '--dir', dir, '--keep', '0s', '--keep-checkpoints', '1', '--checkpoint-age', '0s'];
    const withGrace = await run(...args, '--dry-run');
    expect(withGrace.stdout).toContain('the 20 files excision would schedule are not deleted by this run');
    const plan = JSON.parse((await run(...args, '--grace', '0s', '--dry-run', '--json')).stdout);
    const text = await run(...args, '--grace', '0s', '--dry-run');
    expect(text.stdout).toContain('and the 20 files excision would schedule first: with no grace period the real run deletes them too');
    const real = JSON.parse((await run(...args, '--grace', '0s', '--json')).stdout);
    expect(real.reclaim.deleted).toHaveLength(20);
    expect(plan.reclaim.deleted.length + plan.reclaim.afterExcision.files).toBe(real.reclaim.deleted.length);
    expect(plan.reclaim.afterExcision.deletedThisRun).toBe(true);
    expect(plan.excise.files).toBe(real.excise.files);
  }, 60_000);

  it('a lease of huge ttlMs is refused when taken; the longest allowed one prints in strata retain', async () => {
    const dir = await tempDir();
    const store = path.join(dir, 'shared');
    const c = await Catalog.open({ dir: path.join(dir, 'a'), store: { path: store } });
    for (const ttlMs of [1e16, 8.64e15, Number.MAX_SAFE_INTEGER, 366 * 24 * 3600 * 1000]) {
      await expect(c.reader({ lease: { ttlMs } }), String(ttlMs)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    const r = await c.reader({ lease: { ttlMs: 365 * 24 * 3600 * 1000, holder: 'year-long report' } });
    await expect(r.renew(1e16)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    // Another machine, on the shared store, lists the lease.
    const shown = await run('retain', '--dir', path.join(dir, 'b'), '--store', store);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('year-long report');
    expect(shown.stdout).toContain(r.lease!.expiresAt.toISOString());
    await r.close();
    await c.close();
  });

  it('names printed to a terminal are escaped: no escape sequence, control character or reordering mark gets through', async () => {
    const dir = await tempDir();
    const c = await Catalog.open({ dir });
    const evil = '\u001b[2J\u001b[31mred\u0007\u009b1m\u202eevil';
    await c.transaction(async (tx) => {
      await tx.createSchema(evil);
      await tx.createTable(evil, 't', [{ name: 'x\rcolumn', type: 'int32' }]);
    }, { message: 'msg\u001b]0;title\u0007' });
    await c.close();
    for (const [args, shown] of [
      [['show'], '\\u001b[2J\\u001b[31mred\\u0007\\u009b1m\\u202eevil'],
      [['show', `${evil}.t`], 'x\\u000dcolumn'],
      [['snapshots'], 'msg\\u001b]0;title\\u0007'],
    ] as const) {
      const out = await run(...args, '--dir', dir);
      expect(out.code, args[0]).toBe(0);
      expect(out.stdout, args[0]).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
      expect(out.stdout, args[0]).toContain(shown);
    }
    const missing = await run('show', '--dir', dir, `${evil}.nope`);
    expect(missing.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    // JSON keeps the names exact (escaped as JSON does).
    const json = JSON.parse((await run('show', '--dir', dir, '--json')).stdout);
    expect(json.schemas.map((s: { name: string }) => s.name)).toContain(evil);
  }, 60_000);

  it('a URL given to --store is S3 (its scheme in any case) or refused; never a directory named after its scheme', async () => {
    const cwd = await tempDir();
    const dir = path.join(cwd, 'lake');
    for (const [store, said] of [
      ['s3://', /--store s3:\/\/ names no bucket; an S3 store is s3:\/\/bucket/],
      ['S3://', /names no bucket/],
      ['s3:///p', /names no bucket/],
      ['s3:bucket/p', /neither a directory nor an S3 URL/],
      ['gs://bucket/p', /gs:\/\/ is not a store Strata knows/],
      ['s3://a bucket/p', /names the bucket "a bucket", which is not a bucket name/],
    ] as const) {
      for (const json of [false, true]) {
        const r = await runCliWith({ cwd }, 'init', '--dir', dir, '--store', store, ...(json ? ['--json'] : []));
        expect(r.code, store).toBe(2);
        expect(json ? JSON.parse(r.stderr).error.message : r.stderr, store).toMatch(said);
      }
    }
    expect(await readdir(cwd)).toEqual([]);
    // An uppercase scheme is S3's: here an endpoint that refuses connections, so the open fails, and makes nothing.
    const s3 = await runCliWith({ cwd, env: { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEKEY', AWS_SECRET_ACCESS_KEY: 'an-example-secret' } }, 'init', '--dir', dir, '--store', 'S3://bucket/p', '--endpoint', 'http://127.0.0.1:9', '--path-style');
    expect(s3.code).toBe(1);
    expect(s3.stderr).toMatch(/^strata: STORE_UNAVAILABLE: s3:\/\/bucket\/p /m);
    expect(s3.stdout).not.toContain('catalog ready');
    expect(s3.stderr).not.toContain('Warning'); // the SDK's notice about Node versions it will need next year
    expect((await readdir(cwd)).filter((n) => /^s3:/i.test(n))).toEqual([]);
  }, 120_000);

  it('a file given as --dir is INVALID_ARGUMENT naming it, not a raw ENOTDIR', async () => {
    const file = path.join(await tempDir(), 'lake.txt');
    await writeFile(file, 'not a lake');
    for (const dir of [file, path.join(file, 'lake')]) {
      const r = await run('init', '--dir', dir);
      expect(r.code, dir).toBe(1);
      expect(r.stderr, dir).toBe(`strata: INVALID_ARGUMENT: cannot make directory ${path.join(dir, 'store')}: ${file} is a file, not a directory; give a path where a directory can be made\n`);
    }
  });

  it.skipIf(!canMountReadOnly)('on a read-only disk: reads say where the index can go, and there they work; a write says how to read (skipped where this process may not mount)', async () => {
    const dir = await tempDir();
    expect((await run('init', '--dir', dir)).code).toBe(0);
    expect((await run('sql', '--dir', dir, 'CREATE TABLE t (i BIGINT)')).code).toBe(0);
    expect((await run('sql', '--dir', dir, 'INSERT INTO t VALUES (1), (2)')).code).toBe(0);
    const index = await tempDir();
    const store = path.join(dir, 'store');
    await whileReadOnly(dir, async () => {
      for (const args of [['info'], ['snapshots'], ['sql', 'SELECT sum(i) FROM t']]) {
        const r = await run(...args, '--dir', dir);
        expect(r.code, args[0]).toBe(1);
        expect(r.stderr, args[0]).toMatch(/^strata: STORE_UNAVAILABLE: the local index at .*index cannot be written: the file system is mounted read-only\. .*--dir.*--store.*--read-only/);
      }
      const info = await run('info', '--dir', index, '--store', store);
      expect(info.stdout, info.stderr).toContain(`store                   directory ${store}`);
      const read = await run('sql', '--read-only', '--dir', index, '--store', store, '--json', 'SELECT sum(i) AS s FROM t');
      expect(JSON.parse(read.stdout), read.stderr).toEqual([{ s: 3 }]);
      const write = await run('sql', '--dir', index, '--store', store, 'INSERT INTO t VALUES (3)');
      expect(write.code).toBe(1);
      expect(write.stderr).toMatch(/^strata: STORE_UNAVAILABLE: .*read-only file system.*strata --read-only/);
    });
  }, 60_000);
});
