import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/errors.js';
import { inParallel } from '../../src/in-parallel.js';
import { S3Store } from '../../src/store/s3-store.js';
import { objectStoreConformance } from './conformance/index.js';
import { destroyAfter, forwardingProxy, s3Error } from './fake-s3.js';
import { ensureBucket, freshS3Store, s3Options } from './s3-env.js';

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
  describe('S3Store deletes', () => {
    /** A store under a fresh prefix that talks to the server through a recording proxy, and `n` keys, the first `written` of them written. */
    async function behindProxy(n: number, written: number, refuse?: Parameters<typeof forwardingProxy>[1]) {
      await ensureBucket(opts!);
      const proxy = await forwardingProxy(opts!.endpoint!, refuse);
      const store = destroyAfter(new S3Store({ ...opts!, endpoint: proxy.endpoint, prefix: `t-${randomUUID()}` }));
      const keys = Array.from({ length: n }, (_, i) => `data/t/f${String(i).padStart(5, '0')}.parquet`);
      await inParallel(keys.slice(0, written), 16, async (k) => void (await store.putIfAbsent(k, new Uint8Array([1]))));
      proxy.seen.length = 0;
      const left = async () => {
        const out: string[] = [];
        for await (const o of store.list('data/')) out.push(o.key);
        return out;
      };
      return { store, keys, seen: proxy.seen, left };
    }

    it('2,500 keys, 500 of them never written, go in three DeleteObjects requests and nothing else', async () => {
      const { store, keys, seen, left } = await behindProxy(2500, 2000);
      await store.delete(keys);
      expect(seen).toHaveLength(3);
      // DeleteObjects is a POST to the bucket with a `delete` query parameter.
      expect(seen.map((r) => /^POST \/strata-test\/?\?delete(=|&|$)/.test(r))).toEqual([true, true, true]);
      expect(await left()).toEqual([]);
    });

    it('a service that does not take DeleteObjects gets one DeleteObject per key, and is not asked again', async () => {
      const refuse = (method: string, url: string, res: import('node:http').ServerResponse) => {
        if (method !== 'POST' || !/[?&]delete/.test(url)) return false;
        s3Error(res, 501, 'NotImplemented', 'A header you provided implies functionality that is not implemented');
        return true;
      };
      const { store, keys, seen, left } = await behindProxy(40, 40, refuse);
      await store.delete(keys.slice(0, 30));
      expect(seen.filter((r) => r.startsWith('POST'))).toHaveLength(1);
      expect(seen.filter((r) => r.startsWith('DELETE'))).toHaveLength(30);
      seen.length = 0;
      await store.delete(keys.slice(30));
      expect(seen.filter((r) => r.startsWith('DELETE'))).toHaveLength(10);
      expect(seen).toHaveLength(10);
      expect(await left()).toEqual([]);
    });
  });
}
