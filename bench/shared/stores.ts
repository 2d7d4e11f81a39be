// The stores the shared-store benchmarks run on: a local directory always, the S3 server when its variables
// are set (../shared/s3/start-s3.sh prints them).
import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3StoreOptions } from '../../src/index.js';

export type StoreSpec = { path: string } | { s3: S3StoreOptions };

const BUCKET = 'strata-bench';

export function s3Available(): boolean {
  return process.env.S3_ENDPOINT !== undefined;
}

let bucket: Promise<void> | undefined;

/** A fresh prefix of the benchmark bucket on the S3 server. */
export async function freshS3(): Promise<StoreSpec> {
  const opts = {
    endpoint: process.env.S3_ENDPOINT!,
    region: process.env.S3_REGION ?? 'us-east-1',
    credentials: { accessKeyId: process.env.S3_ACCESS_KEY_ID!, secretAccessKey: process.env.S3_SECRET_ACCESS_KEY! },
    forcePathStyle: true,
  };
  bucket ??= (async () => {
    const client = new S3Client(opts);
    try {
      await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    } catch (e) {
      const name = (e as { name?: string }).name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw e;
    } finally {
      client.destroy();
    }
  })();
  await bucket;
  return { s3: { ...opts, bucket: BUCKET, prefix: `bench/${randomUUID()}` } };
}
