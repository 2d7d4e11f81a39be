import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/errors.js';
import { S3Store } from '../../src/store/s3-store.js';
import { objectStoreConformance } from './conformance/index.js';
import { freshS3Store, s3Options } from './s3-env.js';

const opts = s3Options();

if (opts === undefined) {
  describe.skip('S3Store (no S3 server: run ../shared/s3/start-s3.sh and export its variables)', () => {
    it('needs a server', () => undefined);
  });
} else {
  objectStoreConformance('s3', () => freshS3Store(opts), { localRoot: false });

  describe('S3Store', () => {
    it('honours conditional writes (the start-up probe passes)', async () => {
      const s = await freshS3Store(opts);
      await s.assertConditionalWrites();
    });

    it('works with the default timeout (no timeoutMs given), a 4 MiB object (a checkpoint chunk, sent after 100-continue) too', async () => {
      const s = await freshS3Store(opts);
      const chunk = Uint8Array.from({ length: 4 << 20 }, (_, i) => i % 251);
      expect(await s.putIfAbsent('checkpoints/1/chunk-000001', chunk)).toBe(true);
      expect(await s.putIfAbsent('checkpoints/1/chunk-000001', new Uint8Array(1))).toBe(false);
      expect(Buffer.from((await s.get('checkpoints/1/chunk-000001'))!).equals(Buffer.from(chunk))).toBe(true);
      await s.replace('checkpoints/1/manifest', new Uint8Array([1]));
      const listed: string[] = [];
      for await (const o of s.list('checkpoints/1/')) listed.push(o.key);
      expect(listed).toEqual(['checkpoints/1/chunk-000001', 'checkpoints/1/manifest']);
      await s.delete(listed);
      expect(await s.get('checkpoints/1/manifest')).toBeUndefined();
    });

    it('names objects with their bucket and prefix, and reports failures as STORE_UNAVAILABLE without credentials', async () => {
      const s = await freshS3Store(opts);
      expect(s.url('log/1')).toMatch(/^s3:\/\/strata-test\/t-[0-9a-f-]+\/log\/1$/);
      const missing = new S3Store({ ...opts, bucket: 'no-such-bucket-strata', maxAttempts: 2 });
      const err = await missing.putIfAbsent('log/1', new Uint8Array([1])).catch((e: unknown) => e);
      expect(isStrataError(err, 'STORE_UNAVAILABLE')).toBe(true);
      expect((err as Error).message).toContain('create "log/1"');
      expect((err as Error).message).not.toContain(opts.credentials!.secretAccessKey);
      const down = new S3Store({ ...opts, endpoint: 'http://127.0.0.1:9', maxAttempts: 2 });
      const err2 = await down.get('log/1').catch((e: unknown) => e);
      expect(isStrataError(err2, 'STORE_UNAVAILABLE')).toBe(true);
      expect((err2 as Error).message).toContain('no HTTP answer');
    });
  });
}
