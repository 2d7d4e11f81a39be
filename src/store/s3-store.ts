// The object store on S3 or any S3-compatible service (MinIO, Ceph RGW, R2). Create-if-absent is a PUT with
// `If-None-Match: *`: the service answers 412 when the key exists. Transient failures (5xx, throttling,
// network) are retried with jittered backoff, a bounded number of times; client errors (4xx) never are.
// Every failure that remains is STORE_UNAVAILABLE naming the operation, the key and the endpoint — never
// the credentials.
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { StrataError } from '../errors.js';
import { assertValidObjectKey, type ObjectInfo, type ObjectStore } from './object-store.js';

export interface S3StoreOptions {
  bucket: string;
  /** Key prefix inside the bucket (no leading or trailing slash needed). */
  prefix?: string;
  endpoint?: string;
  region?: string;
  /** Explicit credentials; without them the SDK's default chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Path-style addressing (`endpoint/bucket/key`), which MinIO and Ceph need. */
  forcePathStyle?: boolean;
  /** Attempts per request, first included (default 5). */
  maxAttempts?: number;
  /** The jitter of retry pauses, uniform in [0, 1) (default Math.random; seeded in tests, so a run replays). */
  random?: () => number;
}

interface S3Failure {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

const status = (e: unknown) => (e as S3Failure).$metadata?.httpStatusCode;

/** 5xx, throttling and failures with no HTTP answer at all (network, timeouts) may succeed if tried again. */
function transient(e: unknown): boolean {
  const s = status(e);
  if (s === undefined) return true;
  return s >= 500 || s === 429 || (e as S3Failure).name === 'SlowDown';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where assertConditionalWrites writes its probe objects (and deletes them again). */
const PROBE_PREFIX = '_strata/probe/';

export class S3Store implements ObjectStore {
  readonly description: string;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly maxAttempts: number;
  private readonly random: () => number;

  constructor(opts: S3StoreOptions) {
    if (typeof opts?.bucket !== 'string' || opts.bucket === '') {
      throw new StrataError('INVALID_ARGUMENT', 'an S3 store needs { bucket }');
    }
    this.bucket = opts.bucket;
    this.prefix = (opts.prefix ?? '').replace(/^\/+|\/+$/g, '');
    if (this.prefix !== '') assertValidObjectKey(this.prefix);
    this.maxAttempts = opts.maxAttempts ?? 5;
    this.random = opts.random ?? Math.random;
    const config: S3ClientConfig = {
      region: opts.region ?? process.env.AWS_REGION ?? 'us-east-1',
      forcePathStyle: opts.forcePathStyle ?? false,
      // Retries are ours (bounded, jittered, conditional-write aware); the SDK makes one attempt.
      maxAttempts: 1,
      // Compatible services reject the newer default checksums on streaming uploads.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(opts.endpoint === undefined ? {} : { endpoint: opts.endpoint }),
      ...(opts.credentials === undefined ? {} : { credentials: opts.credentials }),
    };
    this.client = new S3Client(config);
    this.description = `s3://${this.bucket}/${this.prefix}${opts.endpoint ? ` at ${opts.endpoint}` : ''}`;
  }

  private key(key: string): string {
    assertValidObjectKey(key);
    return this.prefix === '' ? key : `${this.prefix}/${key}`;
  }

  url(key: string): string {
    return `s3://${this.bucket}/${this.key(key)}`;
  }

  /** Runs `op`, retrying transient failures with jittered exponential backoff. */
  private async retrying<T>(what: string, key: string, op: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await op();
      } catch (e) {
        if (!transient(e) || attempt >= this.maxAttempts) throw this.unavailable(what, key, e);
        await sleep(this.random() * Math.min(2000, 50 * 2 ** attempt));
      }
    }
  }

  private unavailable(what: string, key: string, e: unknown): StrataError {
    const f = e as S3Failure & { message?: string };
    const code = f.name ?? f.code ?? 'error';
    const http = status(e) === undefined ? 'no HTTP answer' : `HTTP ${status(e)}`;
    return new StrataError(
      'STORE_UNAVAILABLE',
      `${this.description}: ${what} ${JSON.stringify(key)} failed (${code}, ${http}): ${f.message ?? ''}`.trim(),
      { cause: e },
    );
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const Key = this.key(key);
    return this.retrying('get', key, async () => {
      try {
        const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
        return out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
      } catch (e) {
        if (status(e) === 404 || (e as S3Failure).name === 'NoSuchKey') return undefined;
        throw e;
      }
    });
  }

  async putIfAbsent(key: string, body: Uint8Array): Promise<boolean> {
    const Key = this.key(key);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: body, IfNoneMatch: '*' }));
        return true;
      } catch (e) {
        if (status(e) === 412) return false;
        if (!transient(e) || attempt >= this.maxAttempts) throw this.unavailable('create', key, e);
        // A failed conditional write may still have happened, or another writer's may have: look before
        // trying again (some services answer a lost race with 5xx instead of 412).
        const existing = await this.get(key);
        if (existing !== undefined) return Buffer.compare(existing, body) === 0;
        await sleep(this.random() * Math.min(2000, 50 * 2 ** attempt));
      }
    }
  }

  async replace(key: string, body: Uint8Array): Promise<void> {
    const Key = this.key(key);
    await this.retrying('replace', key, () => this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: body })));
  }

  async *list(prefix: string, options: { startAfter?: string } = {}): AsyncIterable<ObjectInfo> {
    const full = this.prefix === '' ? prefix : `${this.prefix}/${prefix}`;
    const strip = this.prefix === '' ? 0 : this.prefix.length + 1;
    let token: string | undefined;
    const startAfter = options.startAfter === undefined ? undefined : this.key(options.startAfter);
    do {
      const page = await this.retrying('list', prefix, () =>
        this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: full,
            ...(token === undefined ? (startAfter === undefined ? {} : { StartAfter: startAfter }) : { ContinuationToken: token }),
          }),
        ),
      );
      for (const o of page.Contents ?? []) {
        if (o.Key !== undefined) yield { key: o.Key.slice(strip), lastModified: o.LastModified?.getTime() ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  /** Probe objects of assertConditionalWrites whose process stopped before deleting them. */
  async sweep(before: number, dryRun: boolean): Promise<string[]> {
    const left: string[] = [];
    for await (const o of this.list(PROBE_PREFIX)) if (o.lastModified < before) left.push(o.key);
    if (!dryRun) await this.delete(left);
    return left;
  }

  async delete(keys: readonly string[]): Promise<void> {
    // One request per key: DeleteObjects needs a checksum header that not every compatible service accepts,
    // and deletes are rare (reclamation, log compaction).
    for (const key of keys) {
      const Key = this.key(key);
      await this.retrying('delete', key, () => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key })));
    }
  }

  /**
   * Refuses a service that silently ignores conditional writes: it would let two writers own one log entry.
   * Writes a probe object twice; the second write must be refused.
   */
  async assertConditionalWrites(): Promise<void> {
    const probe = `${PROBE_PREFIX}${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const first = await this.putIfAbsent(probe, new TextEncoder().encode('first'));
    const second = await this.putIfAbsent(probe, new TextEncoder().encode('second'));
    await this.delete([probe]);
    if (!first || second) {
      throw new StrataError(
        'STORE_UNAVAILABLE',
        `${this.description} does not honour If-None-Match: * on PUT (a second create of one key succeeded), so ` +
          'writers could overwrite each other’s commits; use a store that supports conditional writes',
      );
    }
  }

  destroy(): void {
    this.client.destroy();
  }
}
