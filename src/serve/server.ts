// `serve(catalog, options)`: the catalog as an Apache Iceberg REST catalog over HTTP (docs/DESIGN.md §9), the
// read routes only. fastify routes the requests and checks their query strings and headers against each
// route's JSON schema; this module adds what every request shares: the bearer token, the spec's error body
// for whatever fails (never a stack trace), 406 for the spec's routes it does not serve, and one log line.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Catalog } from '../catalog/catalog.js';
import { StrataError } from '../errors.js';
import { ENDPOINTS, registerRoutes } from './routes.js';
import { badRequest, RestError, restErrorOf } from './rest-errors.js';
import { isSpecRoute } from './spec-routes.js';

export interface ServeOptions {
  /** The address to listen on: loopback unless told otherwise. */
  host?: string;
  /** The port; 0 picks a free one (the server's `url` says which). Default 8181, the REST catalog's usual. */
  port?: number;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token?: string;
  /** A warehouse prefix: routes are served under `/v1/<prefix>/…` too, and `/v1/config` tells clients to use it. */
  prefix?: string;
  /** Called with one line per request (method, path, status, time). */
  log?: (line: string) => void;
}

export interface IcebergServer {
  /** Where it listens, as `http://host:port`. */
  url: string;
  /** Stops taking requests, lets those under way finish, and closes the socket. The catalog stays open. */
  close(): Promise<void>;
}

export async function serve(catalog: Catalog, options: ServeOptions = {}): Promise<IcebergServer> {
  const { host = '127.0.0.1', port = 8181, token, prefix, log } = options;
  if (token === '') throw new StrataError('INVALID_ARGUMENT', 'serve(): an empty token would let anyone in; give a token, or none to serve without one');
  if (prefix !== undefined && !/^[A-Za-z0-9._-]+$/.test(prefix)) {
    throw new StrataError('INVALID_ARGUMENT', `serve(): the prefix ${JSON.stringify(prefix)} must be letters, digits, ".", "_" or "-" (it is one segment of every path)`);
  }
  // Loaded here, not with the package: an embedder or a CLI call that serves nothing does not pay for it (~45 ms).
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false, exposeHeadRoutes: false, return503OnClosing: true });
  const prefixes = prefix === undefined ? [] : [prefix];

  if (token !== undefined) {
    const expected = digest(`Bearer ${token}`);
    app.addHook('onRequest', async (req) => {
      const given = req.headers.authorization;
      if (given === undefined || !timingSafeEqual(digest(given), expected)) {
        throw new RestError(401, 'NotAuthorizedException', given === undefined ? 'this server requires a bearer token: send Authorization: Bearer <token>' : 'the bearer token is not the one this server was given');
      }
    });
  }
  if (log !== undefined) {
    app.addHook('onResponse', async (req, reply) => {
      log(`${req.method} ${req.url} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms`);
    });
  }

  app.setErrorHandler((e: FastifyError, _req, reply) => {
    const rest = e.validation !== undefined ? badRequest(`${e.validationContext ?? 'request'} ${e.message.replace(/^(querystring|params|headers)\/?/, '')}`) : restErrorOf(e) ?? clientError(e);
    if (rest === undefined) {
      log?.(`error: ${e instanceof Error ? e.message : String(e)}`);
      return reply.code(500).send(new RestError(500, 'ServiceFailureException', 'the server failed while answering; its log says why').body());
    }
    if (rest.status === 401) reply.header('www-authenticate', 'Bearer');
    return reply.code(rest.status).send(rest.body());
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]!;
    const served = ['/v1', ...prefixes.map((p) => `/v1/${p}`)].join(' and ');
    const e = isSpecRoute(path, prefixes)
      ? new RestError(406, 'UnsupportedOperationException', `${req.method} ${path} is not served: strata serve answers the catalog's read routes (GET /v1/config, ${ENDPOINTS.join(', ')}) and writes nothing`)
      : new RestError(404, 'NotFoundException', `${req.method} ${path} is not a route of the Iceberg REST catalog here; routes are under ${served}`);
    return reply.code(e.status).send(e.body());
  });

  app.get<{ Querystring: { warehouse?: string } }>('/v1/config', { schema: { querystring: { type: 'object', properties: { warehouse: { type: 'string' } } } } }, async (req) => {
    const asked = req.query.warehouse;
    if (asked !== undefined && asked !== '' && asked !== prefix) {
      throw new RestError(404, 'NoSuchWarehouseException', `warehouse ${JSON.stringify(asked)} is not served here; ${prefix === undefined ? 'this server has no warehouse prefix: ask without one' : `the one served is ${JSON.stringify(prefix)}`}`);
    }
    return { defaults: {}, overrides: prefix === undefined ? {} : { prefix }, endpoints: ['GET /v1/config', ...ENDPOINTS] };
  });
  for (const base of ['/v1', ...prefixes.map((p) => `/v1/${p}`)]) {
    await app.register(async (scope: FastifyInstance) => registerRoutes(scope, catalog), { prefix: base });
  }

  await app.listen({ host, port });
  const address = app.server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shown}:${bound}`, close: () => app.close() };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** fastify's own errors for a request it cannot read (bad JSON, an unsupported media type, a body too large). */
function clientError(e: FastifyError): RestError | undefined {
  const status = e.statusCode;
  return status !== undefined && status >= 400 && status < 500 ? new RestError(status, 'BadRequestException', e.message) : undefined;
}
