// The S3 server the tests use: ../shared/s3/start-s3.sh prints its variables (.ci/run exports them).
// Without them the S3 suites are skipped locally, and fail in CI, where skipping would hide a broken store.
import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { S3Store, type S3StoreOptions } from '../../src/store/s3-store.js';

export const S3_BUCKET = 'strata-test';

export function s3Options(): Omit<S3StoreOptions, 'prefix'> | undefined {
  const endpoint = process.env.S3_ENDPOINT;
  if (!endpoint) {
    if (process.env.CI) throw new Error('CI must run the S3 tests: start ../shared/s3/start-s3.sh and export its variables');
    return undefined;
  }
  return {
    bucket: S3_BUCKET,
    endpoint,
    region: process.env.S3_REGION ?? 'us-east-1',
    credentials: { accessKeyId: process.env.S3_ACCESS_KEY_ID!, secretAccessKey: process.env.S3_SECRET_ACCESS_KEY! },
    forcePathStyle: true,
  };
}

let bucketReady: Promise<void> | undefined;

/** The test bucket, created on first use. */
export async function ensureBucket(opts: Omit<S3StoreOptions, 'prefix'>): Promise<void> {
  bucketReady ??= (async () => {
    const client = new S3Client({ ...opts, maxAttempts: 3 });
    try {
      await client.send(new CreateBucketCommand({ Bucket: opts.bucket }));
    } catch (e) {
      const name = (e as { name?: string }).name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw e;
    } finally {
      client.destroy();
    }
  })();
  await bucketReady;
}

/** An S3 store under a fresh prefix of the test bucket. */
export async function freshS3Store(opts: Omit<S3StoreOptions, 'prefix'>): Promise<S3Store> {
  await ensureBucket(opts);
  return new S3Store({ ...opts, prefix: `t-${randomUUID()}` });
}
