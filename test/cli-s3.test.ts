// The command line on S3: --store s3://bucket/prefix with --endpoint and --path-style, credentials from the
// environment only (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, as .ci/run exports them), a lifecycle from init
// through SQL to GC and verify, with no code.
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { runCli as run } from './support/run-cli.js';
import { freshS3Store, s3Options } from './store/s3-env.js';

const s3 = s3Options();

describe.skipIf(s3 === undefined)('strata CLI on S3', () => {
  it('init, sql, snapshots, info, gc and verify against s3://bucket/prefix', { timeout: 180_000 }, async () => {
    (await freshS3Store(s3!)).close(); // the bucket exists
    const store = `s3://${s3!.bucket}/cli-${randomUUID()}`;
    const dir = path.join(await tempDir(), 'lake');
    const at = ['--dir', dir, '--store', store, '--endpoint', s3!.endpoint!, '--path-style'];
    const init = await run('init', ...at);
    expect(init.code, init.stderr).toBe(0);
    expect((await run('sql', 'CREATE TABLE t (id BIGINT)', ...at)).code).toBe(0);
    expect((await run('sql', 'INSERT INTO t SELECT * FROM range(100)', ...at)).code).toBe(0);
    expect((await run('sql', 'DELETE FROM t WHERE id < 50', ...at)).code).toBe(0);
    expect(JSON.parse((await run('sql', 'SELECT count(*) AS n FROM t', ...at, '--json')).stdout)).toEqual([{ n: 50 }]);
    const info = await run('info', ...at);
    expect(info.stdout).toContain(store);
    expect(info.stdout).toMatch(/log layout\s+objects/);
    const gc = JSON.parse((await run('gc', '--keep', '0s', '--grace', '0s', '--checkpoint-age', '0s', ...at, '--json')).stdout);
    expect(gc.excise.snapshots).toBeGreaterThan(0);
    const verify = await run('verify', '--files', ...at);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    // Credentials never come from the command line.
    const leaked = await run('info', '--dir', dir, '--store', store, '--endpoint', 'http://key:secret@127.0.0.1:1', '--path-style');
    expect(leaked.code).toBe(2);
    expect(leaked.stderr).toContain('--endpoint must not carry credentials');
    // A directory store takes no S3 options.
    expect((await run('info', '--dir', dir, '--store', dir, '--region', 'eu-west-1')).code).toBe(2);
  });
});
