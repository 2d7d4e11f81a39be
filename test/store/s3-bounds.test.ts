// An S3 operation is bounded in time, retries included: a service that hangs, or hangs up, is
// STORE_UNAVAILABLE within timeoutMs. Against local servers that misbehave on purpose; no S3 needed. The
// bounds are checked on fake time (test/support/fake-time.ts), to the millisecond.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/errors.js';
import type { S3Store } from '../../src/store/s3-store.js';
import { fakeTimeInEachTest, type Running, start, throughPauses, waitsFor } from '../support/fake-time.js';
import { Occurrences } from '../support/occurrences.js';
import { seeded } from '../support/random.js';
import { type FakeRequest, httpServer, s3Error, storeAt, tcpServer } from './fake-s3.js';

const TIMEOUT_MS = 500;

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

/** Its failure, which must be STORE_UNAVAILABLE, and when (fake ms after it started). */
async function unavailable(run: Running): Promise<{ err: Error; ms: number }> {
  const { err, ms } = await run.failure;
  expect(isStrataError(err, 'STORE_UNAVAILABLE'), String(err)).toBe(true);
  return { err, ms };
}

/** A jitter source that counts its draws: the store draws once per pause, just before it would sleep. */
function counted(random: () => number): { random: () => number; draws: Occurrences } {
  const draws = new Occurrences();
  return {
    draws,
    random: () => {
      draws.happened();
      return random();
    },
  };
}

describe('S3Store request bounds (local servers on fake time, no S3 needed)', () => {
  fakeTimeInEachTest();

  it('a service that accepts connections and never answers is STORE_UNAVAILABLE at timeoutMs, for every operation', async () => {
    const server = await tcpServer('hang');
    const s = storeAt(server.endpoint, { timeoutMs: TIMEOUT_MS });
    for (const [i, [what, op]] of operations.entries()) {
      const run = start(() => op(s));
      // Its request is at the server, which will never answer: only its budget can end it now.
      await server.requests.reached(i + 1);
      await waitsFor(run, TIMEOUT_MS);
      const { err, ms } = await unavailable(run);
      expect(ms, what).toBe(TIMEOUT_MS);
      expect(server.requests.times, `${what}: one request, not retried`).toBe(i + 1);
      expect(err.message).toContain(`${s.description}: ${what} "`);
      expect(err.message).toContain('did not answer within 500 ms (timeoutMs)');
      expect(err.message).toContain('raise timeoutMs');
    }
  });

  it('a service that closes every connection is STORE_UNAVAILABLE within timeoutMs, retries and their pauses included', async () => {
    // Long pauses (jitter near its top), many attempts: the budget, not maxAttempts, is what stops them.
    const server = await tcpServer('close');
    const { random, draws } = counted(() => 0.99);
    const s = storeAt(server.endpoint, { timeoutMs: TIMEOUT_MS, maxAttempts: 50, random });
    let attempts = 0;
    for (const [what, op] of operations) {
      const { err, ms } = await throughPauses(start(() => op(s)), draws);
      expect(isStrataError(err, 'STORE_UNAVAILABLE'), String(err)).toBe(true);
      // The attempts fail at once (no time passes on them): only the pauses take time, and they stop
      // where the next one would not fit.
      expect(ms, what).toBeLessThanOrEqual(TIMEOUT_MS);
      const failed = /failed (\d+) times, and one more attempt would not fit within 500 ms \(timeoutMs; the last failure: .*no HTTP answer/.exec(err.message);
      expect(failed, err.message).not.toBeNull();
      attempts += Number(failed![1]);
    }
    // A create's attempt is a PUT and the read-back that finds nothing: two requests.
    expect(server.requests.times).toBeGreaterThanOrEqual(attempts);
  });

  it('maxAttempts still bounds the attempts of a service that hangs up fast', async () => {
    const server = await tcpServer('close');
    const { random, draws } = counted(seeded(7));
    const s = storeAt(server.endpoint, { timeoutMs: 60_000, maxAttempts: 3, random });
    const { err, ms } = await throughPauses(start(() => s.get('log/1')), draws);
    expect(err.message).toContain('get "log/1" failed 3 times (maxAttempts; the last failure:');
    expect(server.requests.times).toBe(3);
    // Two pauses, each under its cap (100 and 200 ms): nowhere near the 60 s budget.
    expect(ms).toBeLessThan(300);
  });

  it('a GET whose body stops coming is bounded too (the timer covers the body, not only the answer)', async () => {
    const answered = new Occurrences();
    const { endpoint } = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write(Buffer.alloc(10)); // and the other 990 bytes never come
      answered.happened();
    });
    const s = storeAt(endpoint, { timeoutMs: TIMEOUT_MS });
    const run = start(() => s.get('log/1'));
    await answered.reached(1);
    await waitsFor(run, TIMEOUT_MS);
    const { err, ms } = await unavailable(run);
    expect(ms).toBe(TIMEOUT_MS);
    expect(err.message).toContain('get "log/1" did not answer within 500 ms (timeoutMs)');
  });

  it('the read-back is part of the create and within its budget: a read that hangs ends it at timeoutMs', async () => {
    const reading = new Occurrences();
    const { endpoint, seen } = await httpServer((req, res) => {
      if (req.method === 'PUT') s3Error(res, 503, 'SlowDown');
      else reading.happened(); // GETs are never answered
    });
    const s = storeAt(endpoint, { timeoutMs: TIMEOUT_MS, random: seeded(4) });
    const run = start(() => s.putIfAbsent('log/1', Buffer.from('mine')));
    // The PUT's 503 took no time; the read-back is at the server and will never be answered.
    await reading.reached(1);
    await waitsFor(run, TIMEOUT_MS);
    const { err, ms } = await unavailable(run);
    expect(ms).toBe(TIMEOUT_MS);
    expect(seen).toEqual(['PUT log/1', 'GET log/1']);
    expect(err.message).toMatch(/create "log\/1" did not answer within 500 ms \(timeoutMs; the last failure: SlowDown, HTTP 503/);
    expect(err.message).toContain('it may have been created all the same');
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

  it('a client error is not retried and says what the service answered', async () => {
    const { endpoint, seen } = await httpServer((_req, res) => s3Error(res, 403, 'AccessDenied', 'Access Denied'));
    const s = storeAt(endpoint, { timeoutMs: 5000 });
    const { err } = await unavailable(start(() => s.putIfAbsent('log/1', Buffer.from('mine'))));
    expect(seen).toEqual(['PUT log/1']);
    expect(err.message).toBe(`${s.description}: create "log/1" failed (AccessDenied, HTTP 403: Access Denied)`);
  });

  it('refuses a timeout that is not a whole number of milliseconds a timer can wait', () => {
    for (const timeoutMs of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31]) {
      expect(() => storeAt('http://127.0.0.1:1', { timeoutMs }), String(timeoutMs)).toThrow(/timeoutMs must be a whole number of milliseconds from 1 to 2147483647/);
    }
  });
});
