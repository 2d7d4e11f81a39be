// An S3 operation is bounded in time, retries included: a service that hangs, or hangs up, is
// STORE_UNAVAILABLE within timeoutMs. Against local servers that misbehave on purpose; no S3 needed.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/errors.js';
import type { S3Store } from '../../src/store/s3-store.js';
import { seeded } from '../support/random.js';
import { type FakeRequest, httpServer, s3Error, storeAt, tcpServer } from './fake-s3.js';

const TIMEOUT_MS = 500;
/** What a loaded test machine may add to a bound: timers firing late, the SDK's first-request set-up. */
const MARGIN_MS = 300;

const operations: [string, (s: S3Store) => Promise<unknown>][] = [
  ['get', (s) => s.get('log/1')],
  ['create', (s) => s.putIfAbsent('log/1', new Uint8Array(100))],
  // Past 2 MiB the SDK asks for 100-continue and waits for it: the bound must hold there too.
  ['create', (s) => s.putIfAbsent('checkpoints/1/chunk-000001', new Uint8Array(3 << 20))],
  [
    'list',
    async (s) => {
      for await (const _ of s.list('log/'));
    },
  ],
  ['delete', (s) => s.delete(['log/1'])],
  ['replace', (s) => s.replace('log/1', new Uint8Array(100))],
];

/** Runs `op`, which must fail with STORE_UNAVAILABLE: its error, and how long it took. */
async function timed(op: () => Promise<unknown>): Promise<{ err: Error; ms: number }> {
  const start = performance.now();
  const err = await op().then(
    () => new Error('the operation succeeded'),
    (e: unknown) => e as Error,
  );
  const ms = performance.now() - start;
  expect(isStrataError(err, 'STORE_UNAVAILABLE'), String(err)).toBe(true);
  return { err, ms };
}

describe('S3Store request bounds (local servers, no S3 needed)', () => {
  it('a service that accepts connections and never answers is STORE_UNAVAILABLE after timeoutMs, for every operation', { timeout: 20_000 }, async () => {
    const s = storeAt(await tcpServer('hang'), { timeoutMs: TIMEOUT_MS });
    for (const [what, op] of operations) {
      const { err, ms } = await timed(() => op(s));
      expect(ms, what).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      expect(ms, what).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
      expect(err.message).toContain(`${s.description}: ${what} "`);
      expect(err.message).toContain('did not answer within 500 ms (timeoutMs)');
      expect(err.message).toContain('raise timeoutMs');
    }
  });

  it('a service that closes every connection is STORE_UNAVAILABLE within timeoutMs, retries and their pauses included', { timeout: 20_000 }, async () => {
    // Long pauses (jitter near its top), many attempts: the budget, not maxAttempts, is what stops them.
    const s = storeAt(await tcpServer('close'), { timeoutMs: TIMEOUT_MS, maxAttempts: 50, random: () => 0.99 });
    for (const [what, op] of operations) {
      const { err, ms } = await timed(() => op(s));
      expect(ms, what).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
      expect(err.message).toMatch(/failed \d+ times, and one more attempt would not fit within 500 ms \(timeoutMs; the last failure: .*no HTTP answer/);
    }
  });

  it('maxAttempts still bounds the attempts of a service that hangs up fast', async () => {
    const s = storeAt(await tcpServer('close'), { timeoutMs: 60_000, maxAttempts: 3, random: seeded(7) });
    const { err, ms } = await timed(() => s.get('log/1'));
    expect(err.message).toContain('get "log/1" failed 3 times (maxAttempts; the last failure:');
    expect(ms).toBeLessThan(2000);
  });

  it('a GET whose body stops coming is bounded too (the timer covers the body, not only the answer)', async () => {
    const { endpoint } = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write(Buffer.alloc(10)); // and the other 990 bytes never come
    });
    const s = storeAt(endpoint, { timeoutMs: TIMEOUT_MS });
    const { err, ms } = await timed(() => s.get('log/1'));
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    expect(err.message).toContain('get "log/1" did not answer within 500 ms (timeoutMs)');
  });
});

describe('S3Store create-if-absent under failures and timeouts', () => {
  /** A fake S3 holding objects, whose PUTs and GETs the test scripts by request number. */
  function objects() {
    const held = new Map<string, Buffer>();
    const answer = {
      put(req: FakeRequest, res: ServerResponse) {
        if (req.headers['if-none-match'] === '*' && held.has(req.key)) return s3Error(res, 412, 'PreconditionFailed');
        held.set(req.key, req.body);
        res.writeHead(200).end();
      },
      get(req: FakeRequest, res: ServerResponse) {
        const body = held.get(req.key);
        if (body === undefined) return s3Error(res, 404, 'NoSuchKey');
        res.writeHead(200, { 'content-length': String(body.length) }).end(body);
      },
    };
    return { held, answer };
  }

  it('a create whose answer was lost reads the key back, and finds itself', async () => {
    const { held, answer } = objects();
    const { endpoint, seen } = await httpServer((req, res, n) => {
      if (n === 1) {
        held.set(req.key, req.body); // written, but the connection drops before the answer
        res.socket?.destroy();
      } else if (req.method === 'GET') answer.get(req, res);
      else answer.put(req, res);
    });
    const s = storeAt(endpoint, { timeoutMs: 5000, random: seeded(1) });
    expect(await s.putIfAbsent('log/1', Buffer.from('mine'))).toBe(true);
    expect(seen).toEqual(['PUT log/1', 'GET log/1']);
  });

  it('a create applied after the store stopped waiting is still this create: a 412 on the retry is read back', async () => {
    const { held, answer } = objects();
    let late: Buffer | undefined;
    const { endpoint, seen } = await httpServer((req, res, n) => {
      if (n === 1) {
        late = req.body; // the service applies this PUT later, after the store has looked and retried
        res.socket?.destroy();
        return;
      }
      if (late !== undefined && req.method === 'PUT') {
        held.set(req.key, late);
        late = undefined;
      }
      if (req.method === 'GET') answer.get(req, res);
      else answer.put(req, res);
    });
    const s = storeAt(endpoint, { timeoutMs: 5000, random: seeded(2) });
    expect(await s.putIfAbsent('log/1', Buffer.from('mine'))).toBe(true);
    expect(seen).toEqual(['PUT log/1', 'GET log/1', 'PUT log/1', 'GET log/1']);
  });

  it('a 412 on the first attempt is another writer\'s object: false, and nothing read back', async () => {
    const { held, answer } = objects();
    held.set('log/1', Buffer.from('theirs'));
    const { endpoint, seen } = await httpServer((req, res) => (req.method === 'GET' ? answer.get(req, res) : answer.put(req, res)));
    const s = storeAt(endpoint, { timeoutMs: 5000 });
    expect(await s.putIfAbsent('log/1', Buffer.from('mine'))).toBe(false);
    expect(seen).toEqual(['PUT log/1']);
  });

  it('another writer\'s object found by the read-back after a 5xx: false', async () => {
    const { held, answer } = objects();
    const { endpoint } = await httpServer((req, res, n) => {
      if (n === 1) {
        held.set(req.key, Buffer.from('theirs')); // a lost race answered with 500, as RGW does
        return s3Error(res, 500, 'InternalError');
      }
      if (req.method === 'GET') answer.get(req, res);
      else answer.put(req, res);
    });
    const s = storeAt(endpoint, { timeoutMs: 5000, random: seeded(3) });
    expect(await s.putIfAbsent('log/1', Buffer.from('mine'))).toBe(false);
  });

  it('the read-back is part of the create and within its budget: a read that hangs ends it in timeoutMs', async () => {
    const { endpoint, seen } = await httpServer((req, res) => {
      if (req.method === 'PUT') s3Error(res, 503, 'SlowDown');
      // GETs are never answered
    });
    const s = storeAt(endpoint, { timeoutMs: TIMEOUT_MS, random: seeded(4) });
    const { err, ms } = await timed(() => s.putIfAbsent('log/1', Buffer.from('mine')));
    expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    expect(seen).toEqual(['PUT log/1', 'GET log/1']);
    // The hanging read's own request timeout and the budget are both 500 ms: under load either fires first,
    // so the last failure is the PUT's 503 or the GET's timeout.
    expect(err.message).toMatch(/create "log\/1" did not answer within 500 ms \(timeoutMs; the last failure: (SlowDown, HTTP 503|TimeoutError)/);
    expect(err.message).toContain('it may have been created all the same');
  });

  it('a client error is not retried and says what the service answered', async () => {
    const { endpoint, seen } = await httpServer((_req, res) => s3Error(res, 403, 'AccessDenied', 'Access Denied'));
    const s = storeAt(endpoint, { timeoutMs: 5000 });
    const { err } = await timed(() => s.putIfAbsent('log/1', Buffer.from('mine')));
    expect(seen).toEqual(['PUT log/1']);
    expect(err.message).toBe(`${s.description}: create "log/1" failed (AccessDenied, HTTP 403: Access Denied)`);
  });

  it('refuses a timeout that is not a whole number of milliseconds a timer can wait', () => {
    for (const timeoutMs of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31]) {
      expect(() => storeAt('http://127.0.0.1:1', { timeoutMs }), String(timeoutMs)).toThrow(/timeoutMs must be a whole number of milliseconds from 1 to 2147483647/);
    }
  });
});
