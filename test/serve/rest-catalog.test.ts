// `serve()` over real HTTP, with a client nobody here wrote (iceberg-js 0.8.1) and a reader nobody here wrote
// (icebird) reading the rows of the metadata it loads; every response checked against the REST spec's schemas.
import { IcebergError, IcebergRestCatalog } from 'iceberg-js';
import { icebergRead } from 'icebird';
import { afterEach, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/catalog/catalog.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import { type IcebergServer, serve, type ServeOptions } from '../../src/serve/server.js';
import { openCatalog, tempDir } from '../helpers.js';
import { fetchFileUrls } from '../support/file-fetch.js';
import { type ResponseSchema, specErrors } from '../support/iceberg-rest-schemas.js';

fetchFileUrls();

const servers: IcebergServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function started(c: Catalog, options: ServeOptions = {}): Promise<IcebergServer> {
  const s = await serve(c, { port: 0, ...options });
  servers.push(s);
  return s;
}

/** A request's status, headers and JSON body, the body checked against the spec's schema for it. */
async function call(url: string, expected: ResponseSchema | 'none', init: RequestInit = {}) {
  const res = await fetch(url, init);
  const text = await res.text();
  const body = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
  if (expected !== 'none') expect(specErrors(expected, body), text).toBe('');
  else expect(text).toBe('');
  return { status: res.status, headers: res.headers, body: body as Record<string, any> };
}

const head = async (c: Catalog) => (await c.snapshots()).at(-1)!.id as number;

/** Two schemas, a table with appends, a delete and an update, a tag between them, and a second table. */
async function lakeWithHistory() {
  const c = await openCatalog();
  await c.sql('CREATE SCHEMA sales');
  await c.sql('CREATE TABLE sales.orders (id BIGINT NOT NULL, item VARCHAR)');
  const changed: number[] = [];
  await c.sql(`INSERT INTO sales.orders VALUES (1, 'apple'), (2, 'pear')`);
  changed.push(await head(c));
  await c.sql(`INSERT INTO sales.orders VALUES (3, 'plum')`);
  changed.push(await head(c));
  await c.sql('CREATE TABLE sales.returns (id BIGINT)');
  await c.sql('DELETE FROM sales.orders WHERE id = 2');
  changed.push(await head(c));
  await c.createTag('audited', changed[2]!);
  await c.sql('INSERT INTO sales.returns VALUES (9)');
  await c.sql(`UPDATE sales.orders SET item = 'PLUM' WHERE id = 3`);
  changed.push(await head(c));
  return { c, changed };
}

/** The rows of the table's snapshot `id`, as an engine reads them: that snapshot's schema and manifest list. */
async function rowsAt(m: TableMetadata, id: number) {
  const snapshot = m.snapshots.find((s) => s['snapshot-id'] === id)!;
  const rows = await icebergRead({ tableUrl: m.location, metadata: { ...m, 'current-snapshot-id': id, 'current-schema-id': snapshot['schema-id'] } as never });
  return rows.map((r) => ({ id: Number(r.id), item: r.item })).sort((a, b) => a.id - b.id);
}

describe('strata serve: the Iceberg REST catalog', () => {
  it('iceberg-js lists, checks and loads; the metadata matches the catalog and icebird reads its snapshots as catalog.sql does', async () => {
    const { c, changed } = await lakeWithHistory();
    const s = await started(c);
    const rest = new IcebergRestCatalog({ baseUrl: s.url });

    expect(await rest.listNamespaces()).toEqual([{ namespace: ['main'] }, { namespace: ['sales'] }]);
    expect(await rest.listTables({ namespace: ['sales'] })).toEqual([
      { namespace: ['sales'], name: 'orders' },
      { namespace: ['sales'], name: 'returns' },
    ]);
    expect(await rest.loadNamespaceMetadata({ namespace: ['sales'] })).toEqual({ properties: {} });
    expect(await rest.namespaceExists({ namespace: ['sales'] })).toBe(true);
    expect(await rest.namespaceExists({ namespace: ['hr'] })).toBe(false);
    expect(await rest.tableExists({ namespace: ['sales'], name: 'orders' })).toBe(true);
    expect(await rest.tableExists({ namespace: ['sales'], name: 'nothing' })).toBe(false);

    const m = (await rest.loadTable({ namespace: ['sales'], name: 'orders' })) as unknown as TableMetadata;
    expect(m['current-snapshot-id']).toBe(changed.at(-1));
    expect(m.snapshots.map((x) => x['snapshot-id'])).toEqual(changed);
    expect(m.refs).toEqual({ main: { 'snapshot-id': changed.at(-1), type: 'branch' }, audited: { 'snapshot-id': changed[2], type: 'tag' } });

    for (const id of [changed.at(-1)!, changed[0]!, m.refs.audited!['snapshot-id']]) {
      const expected = (await c.sql(`SELECT id, item FROM sales.orders AT (VERSION => ${id}) ORDER BY id`)).rows.map((r) => ({ id: Number(r.id), item: r.item }));
      expect(await rowsAt(m, id)).toEqual(expected);
    }
    expect((await rowsAt(m, changed[2]!)).map((r) => r.id)).toEqual([1, 3]);
  });

  it('answers each read route with the spec\'s response, and ETag with If-None-Match', async () => {
    const { c } = await lakeWithHistory();
    const s = await started(c);
    const config = await call(`${s.url}/v1/config`, 'CatalogConfig');
    expect(config.body).toEqual({ defaults: {}, overrides: {}, endpoints: expect.arrayContaining(['GET /v1/{prefix}/namespaces/{namespace}/tables/{table}', 'HEAD /v1/{prefix}/namespaces/{namespace}']) });
    expect((await call(`${s.url}/v1/namespaces`, 'ListNamespacesResponse')).body.namespaces).toEqual([['main'], ['sales']]);
    expect((await call(`${s.url}/v1/namespaces/sales`, 'GetNamespaceResponse')).body).toEqual({ namespace: ['sales'], properties: {} });
    expect((await call(`${s.url}/v1/namespaces/sales`, 'none', { method: 'HEAD' })).status).toBe(204);
    expect((await call(`${s.url}/v1/namespaces/sales/tables`, 'ListTablesResponse')).body['next-page-token']).toBeNull();
    expect((await call(`${s.url}/v1/namespaces/sales/tables/orders`, 'none', { method: 'HEAD' })).status).toBe(204);

    const all = await call(`${s.url}/v1/namespaces/sales/tables/orders`, 'LoadTableResult');
    expect(all.status).toBe(200);
    const expected = await c.iceberg('sales', 'orders');
    expect(all.body['metadata-location']).toBe(expected.metadataLocation);
    expect(all.body.metadata).toEqual(expected.metadata);
    const refs = await call(`${s.url}/v1/namespaces/sales/tables/orders?snapshots=refs`, 'LoadTableResult');
    expect(refs.body.metadata.snapshots.map((x: { 'snapshot-id': number }) => x['snapshot-id'])).toEqual(
      expected.metadata.snapshots.map((x) => x['snapshot-id']).filter((id) => id === expected.metadata.refs.main!['snapshot-id'] || id === expected.metadata.refs.audited!['snapshot-id']),
    );
    const etag = all.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(refs.headers.get('etag')).not.toBe(etag);

    const unchanged = await call(`${s.url}/v1/namespaces/sales/tables/orders`, 'none', { headers: { 'if-none-match': etag } });
    expect(unchanged.status).toBe(304);
    await c.sql(`INSERT INTO sales.orders VALUES (4, 'fig')`);
    const moved = await call(`${s.url}/v1/namespaces/sales/tables/orders`, 'LoadTableResult', { headers: { 'if-none-match': etag } });
    expect(moved.status).toBe(200);
    expect(moved.body.metadata['current-snapshot-id']).toBe(await head(c));
    expect(moved.headers.get('etag')).not.toBe(etag);
  });

  it('answers what it cannot serve with the spec\'s error: no such namespace or table, writes, bad parameters, other paths', async () => {
    const { c } = await lakeWithHistory();
    await c.sql('CREATE TABLE main.odd (id INTEGER, n UINTEGER)');
    const s = await started(c);
    const error = async (path: string, status: number, type: string, text: RegExp, init: RequestInit = {}) => {
      const r = await call(`${s.url}${path}`, 'IcebergErrorResponse', init);
      expect([r.status, r.body.error.code, r.body.error.type]).toEqual([status, status, type]);
      expect(r.body.error.message).toMatch(text);
      expect(JSON.stringify(r.body)).not.toMatch(/    at |\.ts:\d+/);
    };
    await error('/v1/namespaces/hr', 404, 'NoSuchNamespaceException', /namespace \["hr"\] does not exist; there are 2: "main", "sales"/);
    await error('/v1/namespaces/hr/tables', 404, 'NoSuchNamespaceException', /\["hr"\]/);
    await error('/v1/namespaces/sales%1Feu/tables', 404, 'NoSuchNamespaceException', /\["sales","eu"\] does not exist \(Strata's namespaces are its schemas, one level each\)/);
    await error('/v1/namespaces?parent=hr', 404, 'NoSuchNamespaceException', /\["hr"\]/);
    expect((await call(`${s.url}/v1/namespaces?parent=sales`, 'ListNamespacesResponse')).body.namespaces).toEqual([]);
    await error('/v1/namespaces/sales/tables/nothing', 404, 'NoSuchTableException', /table "nothing" does not exist in namespace \["sales"\]; it has 2/);
    await error('/v1/namespaces/main/tables/odd', 501, 'UnsupportedOperationException', /table "main"."odd" cannot be served as an Iceberg table: its column n is uint32/);
    await error('/v1/namespaces/sales/tables/orders?snapshots=some', 400, 'BadRequestException', /snapshots/);
    await error('/v1/namespaces?pageSize=0', 400, 'BadRequestException', /pageSize/);
    await error('/v1/namespaces?pageToken=bm9wZQ', 400, 'BadRequestException', /not one this server gave/);
    await error('/v1/namespaces', 406, 'UnsupportedOperationException', /POST \/v1\/namespaces is not served/, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ namespace: ['hr'] }) });
    await error('/v1/namespaces/sales/tables/orders', 406, 'UnsupportedOperationException', /DELETE/, { method: 'DELETE' });
    await error('/v1/namespaces/sales/views', 406, 'UnsupportedOperationException', /GET \/v1\/namespaces\/sales\/views is not served/);
    await error('/v1/config?warehouse=elsewhere', 404, 'NoSuchWarehouseException', /"elsewhere" is not served here/);
    await error('/admin', 404, 'NotFoundException', /not a route of the Iceberg REST catalog/);
    await error('/v1/namespaces', 400, 'BadRequestException', /JSON/i, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"namespace":' });

    const rest = new IcebergRestCatalog({ baseUrl: s.url });
    const refused = await rest.createNamespace({ namespace: ['hr'] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(IcebergError);
    expect((refused as IcebergError).status).toBe(406);
    expect(await rest.namespaceExists({ namespace: ['hr'] })).toBe(false);
  });

  it('pages a listing from an empty pageToken to a null next-page-token, every name once in order', async () => {
    const c = await openCatalog();
    const names = ['a', 'b b', 'c', 'd', 'e'];
    for (const n of names) await c.sql(`CREATE TABLE "${n}" (id INTEGER)`);
    const s = await started(c);
    const seen: string[] = [];
    let token = '';
    for (let pages = 0; pages < 10; pages++) {
      const r = await call(`${s.url}/v1/namespaces/main/tables?pageSize=2&pageToken=${encodeURIComponent(token)}`, 'ListTablesResponse');
      seen.push(...r.body.identifiers.map((i: { name: string }) => i.name));
      expect(r.body.identifiers.length).toBeLessThanOrEqual(2);
      if (r.body['next-page-token'] === null) break;
      token = r.body['next-page-token'];
    }
    expect(seen).toEqual(names);
    const whole = await call(`${s.url}/v1/namespaces/main/tables?pageSize=2`, 'ListTablesResponse');
    expect(whole.body.identifiers.map((i: { name: string }) => i.name)).toEqual(names);
  });

  it('requires the bearer token it was given, and serves under a warehouse prefix too', async () => {
    const { c, changed } = await lakeWithHistory();
    const lines: string[] = [];
    const s = await started(c, { token: 'sesame', prefix: 'lake', log: (l) => lines.push(l) });
    const none = await call(`${s.url}/v1/namespaces`, 'IcebergErrorResponse');
    expect([none.status, none.body.error.type, none.headers.get('www-authenticate')]).toEqual([401, 'NotAuthorizedException', 'Bearer']);
    const wrong = await call(`${s.url}/v1/config`, 'IcebergErrorResponse', { headers: { authorization: 'Bearer sesam' } });
    expect(wrong.status).toBe(401);

    const auth = { headers: { authorization: 'Bearer sesame' } };
    expect((await call(`${s.url}/v1/config?warehouse=lake`, 'CatalogConfig', auth)).body.overrides).toEqual({ prefix: 'lake' });
    const rest = new IcebergRestCatalog({ baseUrl: s.url, catalogName: 'lake', auth: { type: 'bearer', token: 'sesame' } });
    const m = (await rest.loadTable({ namespace: ['sales'], name: 'orders' })) as unknown as TableMetadata;
    expect(m['current-snapshot-id']).toBe(changed.at(-1));
    expect(await new IcebergRestCatalog({ baseUrl: s.url, auth: { type: 'bearer', token: 'sesame' } }).listNamespaces()).toEqual([{ namespace: ['main'] }, { namespace: ['sales'] }]);
    const other = await call(`${s.url}/v1/other/namespaces`, 'IcebergErrorResponse', auth);
    expect(other.status).toBe(404);

    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^GET \/v1\/namespaces 401 \d+\.\dms$/);
    expect(lines[3]).toMatch(/^GET \/v1\/lake\/namespaces\/sales\/tables\/orders 200 /);
    expect(lines.join('\n')).not.toContain('sesame');
  });

  it('follows a shared store: a commit another process makes is in the next load', async () => {
    const store = await tempDir();
    const served = await openCatalog({ store: { path: store } });
    await served.sql('CREATE TABLE t (id INTEGER)');
    await served.sql('INSERT INTO t VALUES (1)');
    const s = await started(served);
    const first = await call(`${s.url}/v1/namespaces/main/tables/t`, 'LoadTableResult');

    const writer = await openCatalog({ store: { path: store } });
    await writer.sql('INSERT INTO t VALUES (2)');
    const committed = await head(writer);
    expect(committed).toBeGreaterThan(first.body.metadata['current-snapshot-id']);
    const next = await call(`${s.url}/v1/namespaces/main/tables/t`, 'LoadTableResult', { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(next.status).toBe(200);
    expect(next.body.metadata['current-snapshot-id']).toBe(committed);
    expect(await rowsAt(next.body.metadata, committed)).toEqual([{ id: 1, item: undefined }, { id: 2, item: undefined }]);
  });
});
