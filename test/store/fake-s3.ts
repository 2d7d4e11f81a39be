// Local stand-ins for an S3 service that misbehaves in one exact way (hangs, hangs up, answers what the test
// scripts), so the store's bounds and redaction can be checked without a real server and without waiting
// for one to break.
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach } from 'vitest';
import { S3Store, type S3StoreOptions } from '../../src/store/s3-store.js';
import { Occurrences } from '../support/occurrences.js';

const closers: (() => Promise<void>)[] = [];
const stores: S3Store[] = [];

afterEach(async () => {
  for (const s of stores.splice(0)) s.close();
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** Listens on 127.0.0.1 and is closed after the test, its open connections with it. */
async function listen(server: Server): Promise<number> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as { port: number }).port;
}

export interface TcpServer {
  endpoint: string;
  /**
   * Requests that reached the server: for `hang`, the first bytes of each connection (a request the store
   * will wait on, as it never gets an answer); for `close`, each connection.
   */
  requests: Occurrences;
}

/** A TCP server that accepts connections and then either never answers (`hang`) or closes them at once. */
export async function tcpServer(behaviour: 'hang' | 'close'): Promise<TcpServer> {
  const requests = new Occurrences();
  const port = await listen(
    createServer((socket) => {
      if (behaviour === 'hang') return void socket.once('data', () => requests.happened());
      requests.happened();
      socket.destroy();
    }),
  );
  return { endpoint: `http://127.0.0.1:${port}`, requests };
}

/** One request as the fake sees it, its body read. */
export interface FakeRequest {
  method: string;
  /** The key inside the bucket (path style: /bucket/key). */
  key: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** An HTTP server that hands every request, body read, to `handle`, in order (n counts from 1). */
export async function httpServer(handle: (req: FakeRequest, res: ServerResponse, n: number) => void): Promise<{ endpoint: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const key = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.split('/').slice(2).join('/'));
      seen.push(`${req.method} ${key}`);
      handle({ method: req.method ?? '', key, headers: req.headers, body: Buffer.concat(chunks) }, res, seen.length);
    });
  });
  return { endpoint: `http://127.0.0.1:${await listen(server)}`, seen };
}

/**
 * An HTTP proxy to a real S3 service that records each request as `METHOD path?query` and forwards it, but
 * answers the ones `refuse` picks itself (as a service that lacks an operation does): `refuse` writes the answer.
 */
export async function forwardingProxy(target: string, refuse?: (method: string, url: string, res: ServerResponse) => boolean): Promise<{ endpoint: string; seen: string[] }> {
  const seen: string[] = [];
  const to = new URL(target);
  const server = createHttpServer((req, res) => {
    const line = `${req.method} ${req.url}`;
    seen.push(line);
    if (refuse?.(req.method ?? '', req.url ?? '', res)) {
      req.resume();
      return;
    }
    const upstream = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return { endpoint: `http://127.0.0.1:${await listen(server)}`, seen };
}

/** An S3 error answer as the SDK parses it. */
export function s3Error(res: ServerResponse, status: number, code: string, message = code): void {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

/** `store`, destroyed after the test. */
export function destroyAfter(store: S3Store): S3Store {
  stores.push(store);
  return store;
}

/** A store on `endpoint` with made-up credentials (the fakes check none), destroyed after the test. */
export function storeAt(endpoint: string, opts: Partial<S3StoreOptions> = {}): S3Store {
  return destroyAfter(
    new S3Store({
      bucket: 'b',
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'fake-key-id', secretAccessKey: 'fake-secret' },
      ...opts,
    }),
  );
}

/** A port on 127.0.0.1 that nothing listens on: connecting is refused at once. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
