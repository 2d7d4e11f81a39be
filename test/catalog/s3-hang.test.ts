// docs/DESIGN.md §3, "Requests to S3 are bounded", at the catalog level: an S3 endpoint that accepts connections and
// never answers fails Catalog.open and a commit with STORE_UNAVAILABLE within a stated time, leaves nothing
// half-open behind (the local index, an acknowledgement), and no error it produces carries a secret. The
// bounds asserted below are derived from the code paths they exercise (src/commit/open.ts, src/catalog/catalog.ts,
// src/commit/index-sync.ts, src/log/object-log.ts, src/store/s3-store.ts), each with the path spelled out beside it,
// and checked to the millisecond on fake time (test/support/fake-time.ts): time moves only once the
// requests a path waits on are at the server (or swallowed by the frozen proxy), never to be answered.
import { randomUUID } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { Catalog, isStrataError, type Reader, type S3StoreOptions } from '../../src/index.js';
import { openCatalog, tempDir } from '../helpers.js';
import { tcpServer } from '../store/fake-s3.js';
import { fakeTimeInEachTest, type Running, start, waitsFor } from '../support/fake-time.js';
import { Occurrences } from '../support/occurrences.js';
import { freshS3Store, S3_BUCKET, s3Options } from '../store/s3-env.js';

/**
 * The forms of a thrown value a secret could leak through: what a caller logs (message, stack, String),
 * serialises (JSON) or dumps (util.inspect, which follows `cause` chains).
 */
function renderings(e: unknown): Record<string, string> {
  const err = e as Partial<Error> | undefined;
  return {
    message: String(err?.message),
    stack: String(err?.stack),
    string: String(e),
    json: JSON.stringify(e) ?? '',
    inspect: inspect(e, { depth: 10 }),
  };
}

/**
 * The renderings of `e` holding any of `secrets` (as given or percent-encoded, the form a URL holds): only
 * their names, so that a failing assertion prints which form leaked and never the secret itself.
 */
function leaks(e: unknown, secrets: readonly string[]): string[] {
  const forms = secrets.flatMap((s) => [s, encodeURIComponent(s)]);
  return Object.entries(renderings(e))
    .filter(([, text]) => forms.some((f) => text.includes(f)))
    .map(([name]) => name);
}

/** `text` with the secrets blanked, for assertion messages (printed when the assertion fails). */
function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) for (const f of [s, encodeURIComponent(s)]) out = out.split(f).join('<secret>');
  return out;
}

/** How `run` failed, which must be STORE_UNAVAILABLE with no secret in any rendering, and when (fake ms). */
async function unavailable(run: Running, secrets: readonly string[]): Promise<{ err: Error; ms: number }> {
  const { err, ms } = await run.failure;
  expect(isStrataError(err, 'STORE_UNAVAILABLE'), scrub(String(err), secrets)).toBe(true);
  expect(leaks(err, secrets), 'renderings of the error that hold a secret').toEqual([]);
  return { err, ms };
}

/** The userinfo form of an endpoint: `http://id:secret@host:port`, each part percent-encoded as a URL needs. */
function withUserinfo(endpoint: string, accessKeyId: string, secret: string): string {
  const url = new URL(endpoint);
  return `${url.protocol}//${encodeURIComponent(accessKeyId)}:${encodeURIComponent(secret)}@${url.host}`;
}

describe('a catalog on an S3 endpoint that accepts connections and never answers (no S3 needed)', () => {
  // Invented, and with characters a URL must percent-encode, so both the decoded and the written form are
  // looked for. The hanging server checks nothing.
  const KEY_ID = 'AKIAHANGTEST0000';
  const PASSWORD = 'inv3nted/s3cr3t+Pa55%word';
  const TIMEOUT_MS = 500;
  fakeTimeInEachTest();

  async function hangingS3(): Promise<{ store: { s3: S3StoreOptions }; requests: Occurrences }> {
    // fake-s3's tcpServer: accepts, reads, never writes a byte; closed (with its connections) after the test.
    const server = await tcpServer('hang');
    const endpoint = withUserinfo(server.endpoint, KEY_ID, PASSWORD);
    return { store: { s3: { bucket: 'b', prefix: 'p', endpoint, region: 'us-east-1', forcePathStyle: true, timeoutMs: TIMEOUT_MS } }, requests: server.requests };
  }

  it('a writable open fails with STORE_UNAVAILABLE within timeoutMs, twice alike, and leaves the index directory free', async () => {
    const dir = await tempDir();
    const { store, requests } = await hangingS3();
    // The bound: a writable open on S3 makes, before anything else (the local index included), the
    // conditional-write probe: assertConditionalWrites → putIfAbsent. Its first PUT is never answered, so
    // the attempt's abort signal fires at the operation's deadline (timeoutMs after it started) and
    // putIfAbsent throws at once (an aborted attempt is neither retried nor read back); nothing in
    // openCatalog catches it. So the true worst case is one store operation, timeoutMs, not the 3 × timeoutMs
    // one might guess from the probe's three operations: the first one ends the open. (The local index is
    // not even opened on this path; the read-only test below fails after opening it.)
    for (const attempt of [1, 2]) {
      const run = start(() => Catalog.open({ dir, store }));
      await requests.reached(attempt);
      await waitsFor(run, TIMEOUT_MS);
      const { err, ms } = await unavailable(run, [PASSWORD]);
      expect(ms, `open ${attempt}`).toBe(TIMEOUT_MS);
      expect(requests.times, 'one request per open').toBe(attempt);
      // The same failure both times, the store's, never the local index's (which is STORE_UNAVAILABLE too,
      // "cannot open the local index … Another process holds it open").
      expect(err.message).toMatch(/^s3:\/\/b\/p at http:\/\/127\.0\.0\.1:\d+: create "_strata\/probe\/[^"]+" did not answer within 500 ms \(timeoutMs\)/);
      expect(err.message).not.toContain('local index');
      // The access key id is no secret, but the endpoint shown has no userinfo at all.
      expect(err.message).not.toContain(KEY_ID);
    }
    // Nothing holds the directory: it opens at once against a store that answers.
    const c = await openCatalog({ dir, store: { path: await tempDir() } });
    expect((await c.snapshots()).map((s) => s.id)).toEqual([0]);
  });

  it('a read-only open, which opens the local index before asking the store, closes it again when the store hangs', async () => {
    const dir = await tempDir();
    const { store, requests } = await hangingS3();
    // The bound: readOnly skips the probe, so open goes KvStore.open (local: a fresh LevelDB the first
    // time, a sealed one the second, milliseconds) → firstEntry → log.read(1) → one GET, aborted at
    // timeoutMs; the catch around everything after KvStore.open closes the index and rethrows. Worst case:
    // timeoutMs plus the local open (which takes no time here: fake time moves only once the GET is out).
    for (const attempt of [1, 2]) {
      const run = start(() => Catalog.open({ dir, store, readOnly: true }));
      await requests.reached(attempt);
      await waitsFor(run, TIMEOUT_MS);
      const { err, ms } = await unavailable(run, [PASSWORD]);
      expect(ms, `open ${attempt}`).toBe(TIMEOUT_MS);
      expect(requests.times, 'one request per open').toBe(attempt);
      // A second attempt that found the index still locked would fail before asking the store, with
      // "cannot open the local index": it fails on the store, as the first did.
      // Its first question: how the log is kept.
      expect(err.message).toMatch(/: get "log-layout" did not answer within 500 ms \(timeoutMs\)/);
      expect(err.message).not.toContain('local index');
      expect(err.message).not.toContain(KEY_ID);
    }
    const c = await openCatalog({ dir, store: { path: await tempDir() } });
    expect((await c.snapshots()).map((s) => s.id)).toEqual([0]);
  });
});

/**
 * A TCP proxy to `target` that can be frozen: while frozen it accepts new connections and reads what comes on
 * any connection, but forwards nothing either way — to the client, a service that accepts and never answers.
 * A connection that lost bytes that way has a torn HTTP stream; thawing closes it (the client reconnects)
 * and forwarding resumes on the others.
 */
interface FreezableProxy {
  endpoint: string;
  /** Requests a client sent while frozen, which went nowhere (counted by their request line). */
  swallowed: Occurrences;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

async function freezableProxy(target: string): Promise<FreezableProxy> {
  const { hostname, port } = new URL(target);
  let frozen = false;
  const swallowed = new Occurrences();
  const swallow = (chunk: Buffer) => {
    if (/^[A-Z]+ \//.test(chunk.toString('latin1', 0, 16))) swallowed.happened();
  };
  /** Every client socket, with its upstream (none for one accepted while frozen) and whether it lost bytes. */
  const conns = new Map<Socket, { upstream?: Socket; torn: boolean }>();
  const drop = (client: Socket) => {
    const c = conns.get(client);
    client.destroy();
    c?.upstream?.destroy();
    conns.delete(client);
  };
  const server: Server = createServer((client) => {
    const c: { upstream?: Socket; torn: boolean } = { torn: frozen };
    conns.set(client, c);
    client.on('error', () => drop(client));
    client.on('close', () => drop(client));
    if (frozen) {
      client.on('data', swallow); // read and swallowed; it never gets an upstream
      return;
    }
    const upstream = connect(Number(port), hostname);
    c.upstream = upstream;
    upstream.on('error', () => drop(client));
    upstream.on('close', () => drop(client));
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (frozen || c.torn) {
        c.torn = true;
        if (to === upstream) swallow(chunk);
      } else to.write(chunk);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: listening } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${listening}`,
    swallowed,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const [client, c] of conns) if (c.torn) drop(client);
    },
    close: async () => {
      for (const client of [...conns.keys()]) drop(client);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const opts = s3Options();

if (opts === undefined) {
  describe.skip('a catalog whose S3 service hangs mid-way (no S3 server: run ../shared/s3/start-s3.sh and export its variables)', () => {
    it('needs a server', () => undefined);
  });
} else {
  describe('a catalog whose S3 service hangs mid-way (a freezable proxy in front of the real server)', () => {
    const TIMEOUT_MS = 700;
    fakeTimeInEachTest();
    const { accessKeyId, secretAccessKey } = opts.credentials!;
    const proxies: FreezableProxy[] = [];

    // Catalogs opened with openCatalog are closed by test/helpers.ts's afterEach; the proxy is closed here,
    // its connections with it, so a test that fails while frozen leaves no socket open.
    afterEach(async () => {
      await Promise.all(proxies.splice(0).map((p) => p.close()));
    });

    it('a commit fails with STORE_UNAVAILABLE within its bound, nothing unacknowledged lands, and the catalog goes on once the service answers', async () => {
      (await freshS3Store(opts)).close(); // makes sure the bucket exists
      const proxy = await freezableProxy(opts.endpoint!);
      proxies.push(proxy);
      const prefix = `hang/${randomUUID()}`;
      // The credentials go in the endpoint's userinfo only, so every message that names the endpoint is
      // one that could carry them.
      const s3 = { bucket: S3_BUCKET, prefix, region: opts.region!, forcePathStyle: true, timeoutMs: TIMEOUT_MS };
      const c = await openCatalog({ dir: await tempDir(), store: { s3: { ...s3, endpoint: withUserinfo(proxy.endpoint, accessKeyId, secretAccessKey) } } });
      const acked = [(await c.transaction((tx) => tx.createSchema('a'))).snapshot];
      const before = await c.reader();
      const schemas = (await before.schemas()).map((s) => s.name);
      await before.close();
      expect(schemas).toContain('a');
      const secrets = [secretAccessKey];

      proxy.freeze();
      // A reader while frozen: reader() refreshes first, handing a store it cannot reach to followStatus
      // and going on with the local index. The refresh is head(): one round of two GETs in parallel, each
      // aborted at timeoutMs — so timeoutMs.
      {
        let reader: Reader | undefined;
        const run = start(async () => void (reader = await c.reader()));
        await proxy.swallowed.reached(2);
        await waitsFor(run, TIMEOUT_MS);
        const { err, ms } = await run.failure;
        expect(err.message, 'reader() answers from the local index').toBe('it succeeded');
        expect(ms).toBe(TIMEOUT_MS);
        const r = reader!;
        try {
          expect((await r.schemas()).map((s) => s.name)).toEqual(schemas);
          expect(r.snapshot.id).toBe(acked[0]);
        } finally {
          await r.close();
        }
        const { lastError } = c.followStatus();
        expect(isStrataError(lastError, 'STORE_UNAVAILABLE'), scrub(String(lastError), secrets)).toBe(true);
        expect(lastError!.message).toContain('did not answer within 700 ms (timeoutMs)');
        expect(leaks(lastError, secrets), 'renderings of followStatus().lastError that hold a secret').toEqual([]);
      }

      // Frozen before the transaction: it asks the store nothing first (decision 0057), so its function
      // runs; then appendOwn's create, with the read of the entry after it beside it: the PUT is aborted at
      // timeoutMs (putIfAbsent gives up at once on an aborted attempt), the read-back GET is aborted at
      // timeoutMs too, and a read-back that fails ends appendOwn with no second create ("failed too"). So
      // 2 × timeoutMs: a commit against a service that hangs at any point is over within it.
      {
        let ran = false;
        const run = start(() =>
          c.transaction((tx) => {
            ran = true;
            return tx.createSchema('b');
          }),
        );
        await proxy.swallowed.reached(4); // the create and the read beside it
        await waitsFor(run, TIMEOUT_MS);
        await proxy.swallowed.reached(5); // its read-back
        await waitsFor(run, TIMEOUT_MS);
        const { err, ms } = await unavailable(run, secrets);
        expect(ms).toBe(2 * TIMEOUT_MS);
        expect(proxy.swallowed.times).toBe(5);
        expect(ran).toBe(true);
        expect(err.message).toMatch(/^writing log entry 4 failed 1 time and reading it back failed too, so the commit may or may not have been written/);
        expect(err.message).toContain('create "log/00000000000000000004" did not answer within 700 ms (timeoutMs)');
      }

      // Once the service answers again, the catalog commits on, after the last acknowledged commit (its create
      // of entry 4 meets nothing there: nothing of the failed one passed the frozen proxy).
      proxy.thaw();
      acked.push((await c.transaction((tx) => tx.createSchema('d'))).snapshot);
      expect(acked).toEqual([1, 2]);

      // Another machine (a fresh index, straight to the server) reads every acknowledged commit exactly
      // once, and neither of the failed ones: their bytes never passed the frozen proxy.
      const fresh = await openCatalog({ dir: await tempDir(), store: { s3: { ...opts, prefix } }, readOnly: true });
      const snapshots = await fresh.snapshots();
      expect(snapshots.map((s) => s.id)).toEqual([0, ...acked]);
      const created = snapshots.flatMap((s) => s.changes).filter((ch) => ch.startsWith('created_schema:'));
      expect(created).toEqual(['created_schema:"main"', 'created_schema:"a"', 'created_schema:"d"']);
      const r = await fresh.reader();
      try {
        expect((await r.schemas()).map((s) => s.name).sort()).toEqual(['a', 'd', 'main']);
      } finally {
        await r.close();
      }
    });
  });
}
