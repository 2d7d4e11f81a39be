// The Iceberg REST catalog's read routes over a catalog: config, namespaces (Strata's schemas), the tables of
// one, and a table's metadata at the newest snapshot (`LoadTableResult`). Each request reads the catalog as the
// store has it then (a reader refreshes from a shared store first), so a server follows other writers.
// Query strings and headers are checked by the route's JSON schema (fastify's Ajv), as the spec declares them.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Catalog } from '../catalog/catalog.js';
import type { TableMetadata } from '../iceberg/table-metadata.js';
import { schemaOf } from './namespaces.js';
import { type PageRequest, pageOf } from './pages.js';
import { noSuchTable } from './rest-errors.js';

/** The routes this server answers, as `/v1/config` lists them in `endpoints`. */
export const ENDPOINTS = [
  'GET /v1/{prefix}/namespaces',
  'GET /v1/{prefix}/namespaces/{namespace}',
  'HEAD /v1/{prefix}/namespaces/{namespace}',
  'GET /v1/{prefix}/namespaces/{namespace}/tables',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}',
];

const PAGE_QUERY = {
  type: 'object',
  properties: { pageToken: { type: 'string' }, pageSize: { type: 'integer', minimum: 1 } },
} as const;

const NAMESPACE = { type: 'object', properties: { namespace: { type: 'string' } }, required: ['namespace'] } as const;
const TABLE = {
  type: 'object',
  properties: { namespace: { type: 'string' }, table: { type: 'string' } },
  required: ['namespace', 'table'],
} as const;

type Snapshots = 'all' | 'refs';

/** The routes under one base (`/v1`, or `/v1/PREFIX` for a warehouse prefix), registered on `app`. */
export function registerRoutes(app: FastifyInstance, catalog: Catalog): void {
  const schemaNames = async (): Promise<string[]> => {
    const r = await catalog.reader();
    try {
      return (await r.schemas()).map((s) => s.name);
    } finally {
      await r.close();
    }
  };
  const tableNames = async (encoded: string): Promise<{ schema: string; tables: string[] }> => {
    const r = await catalog.reader();
    try {
      const schema = schemaOf(encoded, (await r.schemas()).map((s) => s.name));
      return { schema, tables: (await r.tables(schema)).map((t) => t.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
    } finally {
      await r.close();
    }
  };
  /** The schema holding table `name` of the namespace, or NoSuchNamespace / NoSuchTable. */
  const requireTable = async (encoded: string, name: string): Promise<string> => {
    const { schema, tables } = await tableNames(encoded);
    if (!tables.includes(name)) {
      throw noSuchTable(`table ${JSON.stringify(name)} does not exist in namespace ${JSON.stringify([schema])}; it has ${tables.length} (GET …/namespaces/${schema}/tables lists them)`);
    }
    return schema;
  };

  app.get<{ Querystring: PageRequest & { parent?: string } }>(
    '/namespaces',
    { schema: { querystring: { ...PAGE_QUERY, properties: { ...PAGE_QUERY.properties, parent: { type: 'string' } } } } },
    async (req) => {
      const names = await schemaNames();
      const parent = req.query.parent;
      // Schemas have no children: under an existing one there is nothing; under any other, no such namespace.
      // An empty parent is no parent, as the spec still allows for older clients.
      const listed = parent === undefined || parent === '' ? names : (schemaOf(parent, names), []);
      const { items, next } = pageOf(listed, (n) => n, req.query);
      return { namespaces: items.map((n) => [n]), 'next-page-token': next };
    },
  );

  app.get<{ Params: { namespace: string } }>('/namespaces/:namespace', { schema: { params: NAMESPACE } }, async (req) => {
    const schema = schemaOf(req.params.namespace, await schemaNames());
    return { namespace: [schema], properties: {} };
  });

  app.head<{ Params: { namespace: string } }>('/namespaces/:namespace', { schema: { params: NAMESPACE } }, async (req, reply) => {
    schemaOf(req.params.namespace, await schemaNames());
    return reply.code(204).send();
  });

  app.get<{ Params: { namespace: string }; Querystring: PageRequest }>(
    '/namespaces/:namespace/tables',
    { schema: { params: NAMESPACE, querystring: PAGE_QUERY } },
    async (req) => {
      const { schema, tables } = await tableNames(req.params.namespace);
      const { items, next } = pageOf(tables, (n) => n, req.query);
      return { identifiers: items.map((name) => ({ namespace: [schema], name })), 'next-page-token': next };
    },
  );

  app.get<{ Params: { namespace: string; table: string }; Querystring: { snapshots?: Snapshots }; Headers: { 'if-none-match'?: string } }>(
    '/namespaces/:namespace/tables/:table',
    {
      schema: {
        params: TABLE,
        querystring: { type: 'object', properties: { snapshots: { type: 'string', enum: ['all', 'refs'] } } },
        headers: { type: 'object', properties: { 'if-none-match': { type: 'string' } } },
      },
    },
    async (req, reply) => {
      const mode = req.query.snapshots ?? 'all';
      const { metadataLocation, metadata } = await catalog.iceberg(await requireTable(req.params.namespace, req.params.table), req.params.table);
      const etag = `"${createHash('sha256').update(`${mode} ${metadataLocation}`).digest('base64url').slice(0, 27)}"`;
      reply.header('etag', etag);
      if (matches(req.headers['if-none-match'], etag)) return reply.code(304).send();
      return { 'metadata-location': metadataLocation, metadata: mode === 'all' ? metadata : referenced(metadata), config: {} };
    },
  );

  app.head<{ Params: { namespace: string; table: string } }>('/namespaces/:namespace/tables/:table', { schema: { params: TABLE } }, async (req, reply: FastifyReply) => {
    await requireTable(req.params.namespace, req.params.table);
    return reply.code(204).send();
  });
}

/** The metadata with only the snapshots a branch or tag names (`snapshots=refs`). */
function referenced(m: TableMetadata): TableMetadata {
  const ids = new Set(Object.values(m.refs).map((r) => r['snapshot-id']));
  return { ...m, snapshots: m.snapshots.filter((s) => ids.has(s['snapshot-id'])) };
}

/** Whether an If-None-Match header names `etag` (weak or strong, in a list, or `*`). */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

