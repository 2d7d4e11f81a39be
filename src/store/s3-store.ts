// The object store on S3 or any S3-compatible service (MinIO, Ceph RGW, R2). Create-if-absent is a PUT with
// `If-None-Match: *`: the service answers 412 when the key exists. Transient failures (5xx, throttling,
// network) are retried with jittered backoff, a bounded number of times; client errors (4xx) never are.
// Every operation is bounded in time, its retries included (timeoutMs), so a hung service is STORE_UNAVAILABLE
// within seconds instead of holding a commit for as long as TCP keeps a dead connection open. Every failure
// that remains is STORE_UNAVAILABLE naming the operation, the key and the endpoint — never the credentials:
// its message is redacted, and it carries no SDK error as its cause (those hold the request that was sent).
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { options } from '../arguments.js';
import { StrataError } from '../errors.js';
import { inParallel } from '../in-parallel.js';
import { assertValidObjectKey, type ObjectInfo, type ObjectStore } from './object-store.js';
import { StoreClock } from './store-clock.js';

/**
 * The AWS SDK, loaded by the first request any S3 store makes: ~45 ms of module loading that a process
 * working on a directory store (every CLI call on one) need not pay.
 */
let loading: Promise<typeof import('@aws-sdk/client-s3')> | undefined;
const sdk = () => (loading ??= import('@aws-sdk/client-s3'));

export interface S3StoreOptions {
  bucket: string;
  /** Key prefix inside the bucket (no leading or trailing slash needed). */
  prefix?: string;
  /**
   * The service's URL. A `user:password@` in it is taken as the access key id and secret (when
   * `credentials` is not given) and removed: the endpoint the store keeps and shows has no userinfo.
   */
  endpoint?: string;
  region?: string;
  /** Explicit credentials; without them the SDK's default chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Path-style addressing (`endpoint/bucket/key`), which MinIO and Ceph need. */
  forcePathStyle?: boolean;
  /** Attempts per request, first included (default 5), as many as fit within timeoutMs. */
  maxAttempts?: number;
  /**
   * How long one store operation may take, its retries and the pauses between them included (ms, default
   * 10,000). A list or a delete of several keys gets this for each request (a page; a thousand keys) it makes.
   */
  timeoutMs?: number;
  /** The jitter of retry pauses, uniform in [0, 1) (default Math.random; seeded in tests, so a run replays). */
  random?: () => number;
}

/**
 * Ten seconds: a small request takes milliseconds (≈5 ms on loopback RGW, tens on AWS S3, whose p99 is well
 * under a second), and the largest object written in one request, a 4 MiB checkpoint chunk, fits at 0.5 MB/s;
 * so a healthy but slow service still gets several retries, while a hung one frees the commit or lock
 * waiting on it in seconds. A service that is slower than that on purpose can be given more.
 */
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

interface S3Failure {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

const status = (e: unknown) => (e as S3Failure).$metadata?.httpStatusCode;

/** 5xx, throttling and failures with no HTTP answer at all (network, timeouts) may succeed if tried again. */
function transient(e: unknown): boolean {
  const s = status(e);
  if (s === undefined) return true;
  return s >= 500 || s === 429 || (e as S3Failure).name === 'SlowDown';
}

/** Keys per DeleteObjects request: S3's limit. */
const DELETE_REQUEST_KEYS = 1000;

/** Delete requests one call has in flight: GC of a dropped table is thousands of objects, each a round trip. */
const DELETES_AT_ONCE = 8;

/** What a delete request's attempt returns when the service will not take DeleteObjects at all. */
const REFUSED = Symbol('DeleteObjects refused');

/** The codes of a 400 that refuses DeleteObjects itself: a header the service wants, an operation it lacks. */
const REFUSALS = new Set(['NotImplemented', 'InvalidRequest', 'MissingContentMD5', 'MissingSecurityHeader', 'InvalidDigest', 'BadDigest']);

/**
 * A service that does not implement DeleteObjects answers 501 or 405; one that wants a checksum header it
 * does not say it wants, a 400 naming it. Not an expired token, a timeout or a permission, which one request
 * per key would meet too, and which must not turn the store to one request per key for good.
 */
function refusesTheRequest(e: unknown): boolean {
  const s = status(e);
  return s === 501 || s === 405 || (s === 400 && REFUSALS.has((e as S3Failure).name ?? ''));
}

const wholeSeconds = (t: Date | undefined) => (t === undefined ? 0 : Math.floor(t.getTime() / 1000) * 1000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A key nobody writes, asked for only for the answer's Date. */
const CLOCK_KEY = '_strata/clock';

/** Where assertConditionalWrites writes its probe objects (and deletes them again). */
export const PROBE_PREFIX = '_strata/probe/';

/** The userinfo of any URL in a text (`scheme://user:password@`), whoever put it there. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*(?:@[^\s/?#@]*)*@/gi;

/** One store operation: what the messages name, and when its time is up (performance.now(), monotonic). */
interface Operation {
  what: string;
  key: string;
  deadline: number;
}

/** What `client.send` accepts besides the command, per attempt. */
interface Attempt {
  abortSignal: AbortSignal;
}

/**
 * The endpoint without its userinfo, and what the userinfo held (decoded, and as written, for redaction).
 * Only http(s) URLs: anything else cannot be an S3 endpoint, and might be a key pasted in the wrong place.
 */
function splitEndpoint(endpoint: string): { bare: string; user: string; password: string; written: string } {
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    // Reported below, like a URL of another scheme.
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    // Quoted only without an "@": a text that is no URL has no userinfo to cut out, yet may hold a password.
    const shown = endpoint.includes('@') ? '(not shown: it has an "@", maybe a password)' : JSON.stringify(endpoint);
    throw new StrataError('INVALID_ARGUMENT', `the S3 endpoint ${shown} is not an http:// or https:// URL: give one such as http://127.0.0.1:7480`);
  }
  let user: string;
  let password: string;
  try {
    user = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    throw new StrataError('INVALID_ARGUMENT', 'the userinfo of the S3 endpoint is not valid percent-encoding: encode the key id and secret, or give them as credentials');
  }
  const bare = `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}${url.search}`;
  return { bare, user, password, written: url.password };
}

/** Redacts `secrets` in each form a message could quote them (longest first, so none leaves a piece of another). */
function redactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const forms = [...new Set(secrets.flatMap((s) => (s ? [s, encodeURIComponent(s)] : [])))].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const form of forms) out = out.split(form).join('***');
    return out.replace(USERINFO, '$1***@');
  };
}

export class S3Store implements ObjectStore {
  readonly description: string;
  readonly maxKeyBytes: number;
  private readonly clock = new StoreClock();
  /** Makes the client; the config it closes over holds the credentials, which no field shows (inspect, logs). */
  private readonly connect: () => Promise<S3Client>;
  /** The client, made with the first request (see sdk()). */
  private connection: Promise<S3Client> | undefined;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly maxAttempts: number;
  private readonly timeoutMs: number;
  private readonly random: () => number;
  /** Set once the service refused DeleteObjects and took one DeleteObject per key instead. */
  private deletesOneByOne = false;
  /**
   * Cuts every secret this store knows, and any URL userinfo, out of a text. A closure, so that the secrets
   * are in no field that printing the store (util.inspect, JSON) would show.
   */
  private readonly redact: (text: string) => string;

  constructor(given: S3StoreOptions) {
    const opts = options('the S3 store', given, ['bucket', 'prefix', 'endpoint', 'region', 'credentials', 'forcePathStyle', 'maxAttempts', 'timeoutMs', 'random']);
    if (typeof opts.bucket !== 'string' || opts.bucket === '') {
      throw new StrataError('INVALID_ARGUMENT', 'an S3 store needs { bucket }');
    }
    this.bucket = opts.bucket;
    this.prefix = (opts.prefix ?? '').replace(/^\/+|\/+$/g, '');
    if (this.prefix !== '') assertValidObjectKey(this.prefix);
    this.maxAttempts = opts.maxAttempts ?? 5;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // Node's timers take at most 2^31 - 1 ms, and fire at once past it.
    if (!Number.isSafeInteger(this.timeoutMs) || this.timeoutMs <= 0 || this.timeoutMs > MAX_TIMEOUT_MS) {
      throw new StrataError('INVALID_ARGUMENT', `timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, not ${opts.timeoutMs}`);
    }
    this.random = opts.random ?? Math.random;
    const endpoint = opts.endpoint === undefined ? undefined : splitEndpoint(opts.endpoint);
    let credentials = opts.credentials;
    if (credentials === undefined && endpoint !== undefined && (endpoint.user !== '' || endpoint.password !== '')) {
      if (endpoint.user === '' || endpoint.password === '') {
        throw new StrataError('INVALID_ARGUMENT', 'the S3 endpoint has userinfo without both parts: give user:password (the access key id and secret), or credentials');
      }
      credentials = { accessKeyId: endpoint.user, secretAccessKey: endpoint.password };
    }
    // Without credentials the SDK's default chain may read them from the environment: secrets this store can
    // name too (a profile's or an instance role's it cannot, but the SDK puts those in no message).
    const known =
      credentials === undefined
        ? [process.env.AWS_SECRET_ACCESS_KEY, process.env.AWS_SESSION_TOKEN]
        : [credentials.secretAccessKey, credentials.sessionToken];
    known.push(endpoint?.password, endpoint?.written);
    this.redact = redactor(known);
    const config: S3ClientConfig = {
      region: opts.region ?? process.env.AWS_REGION ?? 'us-east-1',
      forcePathStyle: opts.forcePathStyle ?? false,
      // Retries are ours (bounded, jittered, conditional-write aware); the SDK makes one attempt.
      maxAttempts: 1,
      // The SDK's own timers cap every request the client makes at a whole budget; each attempt narrows that
      // to what is left of its operation's budget with an abort signal (see signal()). Without
      // throwOnRequestTimeout the request timer only logs a warning.
      requestHandler: { connectionTimeout: this.timeoutMs, requestTimeout: this.timeoutMs, throwOnRequestTimeout: true },
      // Compatible services reject the newer default checksums on streaming uploads.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(endpoint === undefined ? {} : { endpoint: endpoint.bare }),
      ...(credentials === undefined ? {} : { credentials }),
    };
    this.connect = () =>
      sdk().then(({ S3Client }) => {
        const client = new S3Client(config);
        // Innermost, so it sees every raw response, errors (a 404 for an absent log entry) included.
        client.middlewareStack.add(
          (next) => async (args) => {
            const out = await next(args);
            const date = (out.response as { headers?: Record<string, string | undefined> } | undefined)?.headers?.date;
            if (date !== undefined) this.clock.observe(Date.parse(date));
            return out;
          },
          { step: 'deserialize', priority: 'low', name: 'strataStoreClock' },
        );
        return client;
      });
    this.description = `s3://${this.bucket}/${this.prefix}${endpoint ? ` at ${endpoint.bare}` : ''}`;
    this.maxKeyBytes = 1024 - (this.prefix === '' ? 0 : Buffer.byteLength(this.prefix) + 1);
  }

  /** The S3 client: the SDK loaded and the client made on the first request, not when the store is built. */
  private client(): Promise<S3Client> {
    this.connection ??= this.connect();
    return this.connection;
  }

  private key(key: string): string {
    assertValidObjectKey(key);
    return this.prefix === '' ? key : `${this.prefix}/${key}`;
  }

  url(key: string): string {
    return `s3://${this.bucket}/${this.key(key)}`;
  }

  private operation(what: string, key: string): Operation {
    return { what, key, deadline: performance.now() + this.timeoutMs };
  }

  /**
   * The abort signal of an attempt of `op`: it fires when the operation's budget is up. Unlike the SDK's
   * request timer it also covers reading the response body (a GET whose body stops coming). Armed with
   * setTimeout, as the pauses between attempts are, so that the whole budget runs on one clock (which a
   * test's fake timers drive exactly), and disarmed once the attempt is over. Throws if nothing is left of
   * the budget, with `last` (the failure before) as what the message reports.
   */
  private signal(op: Operation, last: unknown): { abortSignal: AbortSignal; disarm: () => void } {
    const left = Math.ceil(op.deadline - performance.now());
    if (left <= 0) throw this.timedOut(op, last);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${left} ms`, 'TimeoutError')), left);
    return { abortSignal: controller.signal, disarm: () => clearTimeout(timer) };
  }

  /** Runs `request`, retrying transient failures with jittered exponential backoff, within `op`'s budget. */
  private async retrying<T>(op: Operation, request: (attempt: Attempt) => Promise<T>, last?: unknown): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const { abortSignal, disarm } = this.signal(op, last);
      try {
        return await request({ abortSignal }).finally(disarm);
      } catch (e) {
        if (abortSignal.aborted) throw this.timedOut(op, last);
        if (!transient(e)) throw this.failed(op, e, last);
        await this.pauseBeforeRetry(op, e, attempt);
        last = e;
      }
    }
  }

  /** After the transient failure `e` of attempt `attempt`: throws if no retry fits, else waits the jittered pause. */
  private async pauseBeforeRetry(op: Operation, e: unknown, attempt: number): Promise<void> {
    const left = op.deadline - performance.now();
    if (left <= 0) throw this.timedOut(op, e);
    if (attempt >= this.maxAttempts) throw this.gaveUp(op, 'maxAttempts', `failed ${attempt} times`, e);
    const pause = this.random() * Math.min(2000, 50 * 2 ** attempt);
    // Sleeping to the deadline only to give up there would hold the caller for nothing.
    if (pause >= left) {
      throw this.gaveUp(op, 'timeoutMs', `failed ${attempt} times, and one more attempt would not fit within ${this.timeoutMs.toLocaleString('en-US')} ms`, e);
    }
    await sleep(pause);
  }

  /** The SDK's failure as a line of text: its error code, the HTTP status, its message. */
  private summary(e: unknown): string {
    const f = e as S3Failure;
    const code = f.name ?? f.code ?? 'error';
    const http = status(e) === undefined ? 'no HTTP answer' : `HTTP ${status(e)}`;
    return `${code}, ${http}${f.message ? `: ${f.message}` : ''}`;
  }

  /**
   * A failure that retrying would not change (a 4xx). After an earlier failure that could be retried, a
   * create may have happened even so.
   */
  private failed(op: Operation, e: unknown, earlier: unknown): StrataError {
    const maybe = earlier === undefined ? '' : this.maybeCreated(op);
    const message = `${this.description}: ${op.what} ${JSON.stringify(op.key)} failed (${this.summary(e)})${maybe}`;
    return new StrataError('STORE_UNAVAILABLE', this.redact(message));
  }

  /** Transient failures that lasted past a bound, `knob`: `outcome` says how far the operation got. */
  private gaveUp(op: Operation, knob: 'timeoutMs' | 'maxAttempts', outcome: string, last: unknown): StrataError {
    const lastly = last === undefined ? '' : `; the last failure: ${this.summary(last)}`;
    return new StrataError(
      'STORE_UNAVAILABLE',
      this.redact(
        `${this.description}: ${op.what} ${JSON.stringify(op.key)} ${outcome} (${knob}${lastly})${this.maybeCreated(op)}; ` +
          `check that the service is up and reachable from here, or raise ${knob} if it is only ${knob === 'timeoutMs' ? 'slow' : 'busy'}`,
      ),
    );
  }

  private timedOut(op: Operation, last: unknown): StrataError {
    return this.gaveUp(op, 'timeoutMs', `did not answer within ${this.timeoutMs.toLocaleString('en-US')} ms`, last);
  }

  /** Said of a create that gave up after a failure that may have written the object regardless. */
  private maybeCreated(op: Operation): string {
    return op.what === 'create' ? '; it may have been created all the same, so read it before creating it again' : '';
  }

  /** The object's bytes (undefined if there is none), body included in the attempt. */
  private async read(Key: string, attempt: Attempt): Promise<Uint8Array | undefined> {
    try {
      const out = await (await this.client()).send(new (await sdk()).GetObjectCommand({ Bucket: this.bucket, Key }), attempt);
      return out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
    } catch (e) {
      if (status(e) === 404 || (e as S3Failure).name === 'NoSuchKey') return undefined;
      throw e;
    }
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const Key = this.key(key);
    return this.retrying(this.operation('get', key), (attempt) => this.read(Key, attempt));
  }

  clockNow(): number | undefined {
    return this.clock.now();
  }

  async readClock(): Promise<void> {
    // Any answer carries the service's Date, a refusal too.
    await this.info(CLOCK_KEY).catch(() => undefined);
  }

  async info(key: string): Promise<ObjectInfo | undefined> {
    const Key = this.key(key);
    return this.retrying(this.operation('info', key), async (attempt) => {
      try {
        const out = await (await this.client()).send(new (await sdk()).HeadObjectCommand({ Bucket: this.bucket, Key }), attempt);
        return { key, lastModified: out.LastModified?.getTime() ?? 0, size: out.ContentLength ?? 0 };
      } catch (e) {
        if (status(e) === 404 || (e as S3Failure).name === 'NotFound') return undefined;
        throw e;
      }
    });
  }

  async putIfAbsent(key: string, body: Uint8Array): Promise<boolean> {
    const Key = this.key(key);
    const op = this.operation('create', key);
    let last: unknown;
    for (let attempt = 1; ; attempt++) {
      const { abortSignal, disarm } = this.signal(op, last);
      try {
        await (await this.client()).send(new (await sdk()).PutObjectCommand({ Bucket: this.bucket, Key, Body: body, IfNoneMatch: '*' }), { abortSignal }).finally(disarm);
        return true;
      } catch (e) {
        if (abortSignal.aborted) throw this.timedOut(op, last);
        // After a failed attempt, "exists" may be that attempt landing late: the service can still apply a
        // request this store stopped waiting for.
        if (status(e) === 412 && attempt === 1) return false;
        if (status(e) !== 412 && !transient(e)) throw this.failed(op, e, last);
        // A failed conditional write may still have happened, or another writer's may have: look before
        // trying again (some services answer a lost race with 5xx instead of 412). The look is part of the
        // operation, within its budget.
        const existing = await this.retrying(op, (a) => this.read(Key, a), e);
        if (existing !== undefined) return Buffer.compare(existing, body) === 0;
        await this.pauseBeforeRetry(op, e, attempt);
        last = e;
      }
    }
  }

  async replace(key: string, body: Uint8Array): Promise<void> {
    const Key = this.key(key);
    await this.retrying(this.operation('replace', key), async (a) => (await this.client()).send(new (await sdk()).PutObjectCommand({ Bucket: this.bucket, Key, Body: body }), a));
  }

  async *list(prefix: string, options: { startAfter?: string } = {}): AsyncIterable<ObjectInfo> {
    const full = this.prefix === '' ? prefix : `${this.prefix}/${prefix}`;
    const strip = this.prefix === '' ? 0 : this.prefix.length + 1;
    let token: string | undefined;
    const startAfter = options.startAfter === undefined ? undefined : this.key(options.startAfter);
    do {
      // A budget per page: the caller's time between pages is not the service's.
      const page = await this.retrying(this.operation('list', prefix), async (a) =>
        (await this.client()).send(
          new (await sdk()).ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: full,
            ...(token === undefined ? (startAfter === undefined ? {} : { StartAfter: startAfter }) : { ContinuationToken: token }),
          }),
          a,
        ),
      );
      for (const o of page.Contents ?? []) {
        // Whole seconds, as a HEAD's Last-Modified has them (info): some services list milliseconds, and GC
        // compares an object's time from either with a log entry's from the other.
        if (o.Key !== undefined) yield { key: o.Key.slice(strip), lastModified: wholeSeconds(o.LastModified), size: o.Size ?? 0 };
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
    const named = keys.map((key) => ({ key, Key: this.key(key) }));
    const requests: (typeof named)[] = [];
    for (let i = 0; i < named.length; i += DELETE_REQUEST_KEYS) requests.push(named.slice(i, i + DELETE_REQUEST_KEYS));
    await inParallel(requests, DELETES_AT_ONCE, (request) => this.deleteMany(request));
  }

  /**
   * One DeleteObjects request for up to 1,000 keys. A service that refuses the request itself (some
   * S3-compatible ones do not take it, or want a checksum header they do not name) gets one DeleteObject per
   * key instead, from then on if that works. A key the service would not delete fails the call, naming it.
   */
  private async deleteMany(request: readonly { key: string; Key: string }[]): Promise<void> {
    if (this.deletesOneByOne) return this.deleteOneByOne(request);
    const op = this.operation(request.length === 1 ? 'delete' : `delete of ${request.length} keys, the first`, request[0]!.key);
    const out = await this.retrying(op, async (a) => {
      try {
        const Objects = request.map(({ Key }) => ({ Key }));
        return await (await this.client()).send(new (await sdk()).DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects, Quiet: true } }), a);
      } catch (e) {
        if (refusesTheRequest(e)) return REFUSED;
        throw e;
      }
    });
    if (out === REFUSED) {
      await this.deleteOneByOne(request);
      this.deletesOneByOne = true;
      return;
    }
    const errors = out.Errors ?? [];
    if (errors.length === 0) return;
    const first = errors[0]!;
    const key = request.find(({ Key }) => Key === first.Key)?.key ?? first.Key;
    const more = errors.length > 1 ? `; so did ${errors.length - 1} more of the request's keys` : '';
    throw new StrataError('STORE_UNAVAILABLE', this.redact(`${this.description}: delete ${JSON.stringify(key)} failed (${first.Code ?? 'error'}: ${first.Message ?? 'no message'})${more}`));
  }

  private deleteOneByOne(request: readonly { key: string; Key: string }[]): Promise<void> {
    return inParallel(request, DELETES_AT_ONCE, async ({ key, Key }) => {
      await this.retrying(this.operation('delete', key), async (a) => (await this.client()).send(new (await sdk()).DeleteObjectCommand({ Bucket: this.bucket, Key }), a));
    });
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

  close(): void {
    void this.connection?.then((client) => client.destroy());
  }
}
