// Credentials never leave the S3 store: not in its description, not in a URL it hands out, not in an error
// however it is printed (message, stack, String, JSON, util.inspect with its causes).
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/errors.js';
import { S3Store } from '../../src/store/s3-store.js';
import { closedPort, destroyAfter, httpServer, s3Error, storeAt } from './fake-s3.js';
import { freshS3Store, s3Options } from './s3-env.js';

/** Every way an error reaches a person or a log. */
function renderings(err: unknown): string[] {
  const e = err as Error;
  return [e.message, String(e.stack), String(e), JSON.stringify(e), inspect(e, { depth: 10 })];
}

function expectNone(texts: string[], secrets: string[]): void {
  for (const text of texts) for (const secret of secrets) expect(text, `${JSON.stringify(secret)} in ${text}`).not.toContain(secret);
}

async function failure(op: Promise<unknown>): Promise<unknown> {
  const err = await op.then(
    () => new Error('the operation succeeded'),
    (e: unknown) => e,
  );
  expect(isStrataError(err, 'STORE_UNAVAILABLE'), String(err)).toBe(true);
  return err;
}

describe('S3Store credentials (local servers, no S3 needed)', () => {
  it('takes user:password out of the endpoint: the description, urls and errors show neither', async () => {
    const port = await closedPort();
    // "/" and "@" percent-encoded, as a secret in userinfo must be.
    const s = storeAt(`http://key-id:pa%2Fss%40w0rd-Zq9@127.0.0.1:${port}`, { maxAttempts: 2 });
    const secrets = ['pa/ss@w0rd-Zq9', 'pa%2Fss%40w0rd-Zq9', 'w0rd-Zq9'];
    expect(s.description).toBe(`s3://b/ at http://127.0.0.1:${port}`);
    expectNone([s.description, s.url('log/1')], secrets);
    for (const op of [() => s.get('log/1'), () => s.putIfAbsent('log/1', new Uint8Array(1)), () => s.delete(['log/1'])]) {
      const err = await failure(op());
      expect((err as Error).message).toContain(`at http://127.0.0.1:${port}:`);
      expectNone(renderings(err), secrets);
    }
    // Nor the store itself, printed whole, after it has been used.
    expectNone([inspect(s, { depth: 30 })], secrets);
  });

  it('redacts every secret it knows from what the service answers, by value and any URL userinfo by shape', async () => {
    const secret = 'sEcReT-access-KEY-0123456789';
    const token = 'SeSsIoN/ToKeN+abcdefghij=='; // quoted as it is and percent-encoded
    const password = 'endpoint-pw-9876';
    // A service (or a proxy in front of it) that quotes back what it was given.
    const { endpoint } = await httpServer((_req, res) =>
      s3Error(res, 400, 'InvalidRequest', `key ${secret}, token ${token}, ${encodeURIComponent(token)}, from http://u:${password}@proxy/ and https://other:elsewhere@host:1/x`),
    );
    const s = storeAt(endpoint.replace('http://', `http://u:${password}@`), { credentials: { accessKeyId: 'id', secretAccessKey: secret, sessionToken: token } });
    expectNone([s.description], [password]);
    const err = await failure(s.get('log/1'));
    expectNone(renderings(err), [secret, token, password, 'elsewhere']);
    expect((err as Error).message).toContain('(InvalidRequest, HTTP 400: key ***, token ***, ***, from http://***@proxy/ and https://***@host:1/x)');
    // No SDK error rides along as the cause: those carry the request that was sent.
    expect((err as Error).cause).toBeUndefined();
  });

  it('refuses endpoints it cannot use, without quoting their userinfo', () => {
    const endpoints = ['ftp://u:pw-secret-1@host/', 'http://u:pw-secret-1@host:99999', 'not a url u:pw-secret-1@', 'http://u:%zz-pw-secret-1@host/'];
    for (const endpoint of endpoints) {
      let err: unknown;
      try {
        new S3Store({ bucket: 'b', endpoint });
      } catch (e) {
        err = e;
      }
      expect(isStrataError(err, 'INVALID_ARGUMENT'), endpoint).toBe(true);
      expectNone(renderings(err), ['pw-secret-1']);
    }
    expect(() => new S3Store({ bucket: 'b', endpoint: 'http://only-a-user@127.0.0.1:1' })).toThrow(/userinfo without both parts/);
  });
});

const opts = s3Options();

describe.skipIf(opts === undefined)('S3Store credentials in the endpoint, on the real S3 server', () => {
  /** The test server's endpoint with `id:secret` as its userinfo, and no credentials option. */
  function userinfoStore(id: string, secret: string): S3Store {
    const url = new URL(opts!.endpoint!);
    url.username = encodeURIComponent(id);
    url.password = encodeURIComponent(secret);
    const { credentials: _, ...rest } = opts!;
    return destroyAfter(new S3Store({ ...rest, endpoint: url.href, prefix: `t-${randomUUID()}` }));
  }

  it('uses user:password of the endpoint as the access key, and shows it nowhere', async () => {
    const { accessKeyId, secretAccessKey } = opts!.credentials!;
    destroyAfter(await freshS3Store(opts!)); // makes sure the bucket exists
    const s = userinfoStore(accessKeyId, secretAccessKey);
    expectNone([s.description, s.url('log/1')], [secretAccessKey, encodeURIComponent(secretAccessKey)]);
    expect(await s.putIfAbsent('log/1', new Uint8Array([1, 2, 3]))).toBe(true);
    expect(await s.get('log/1')).toEqual(new Uint8Array([1, 2, 3]));
    const listed: string[] = [];
    for await (const o of s.list('log/')) listed.push(o.key);
    expect(listed).toEqual(['log/1']);
    await s.delete(['log/1']);
    expect(await s.get('log/1')).toBeUndefined();
    expectNone([inspect(s, { depth: 30 })], [secretAccessKey]);
  });

  it('a wrong secret in the endpoint is refused by the service (it is what signs, not the environment), and not shown', async () => {
    const wrong = 'not-the-secret-0123456789';
    const s = userinfoStore(opts!.credentials!.accessKeyId, wrong);
    const err = await failure(s.get('log/1'));
    expect((err as Error).message).toMatch(/HTTP 403/);
    expectNone(renderings(err), [wrong, opts!.credentials!.secretAccessKey]);
  });
});
