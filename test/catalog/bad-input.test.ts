import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Catalog, type ErrorCode, isStrataError, type Transaction } from '../../src/index.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { logHead } from '../support/store-log.js';

async function seeded(): Promise<{ c: Catalog; dir: string }> {
  const dir = await tempDir();
  const c = await openCatalog({ dir });
  await c.transaction(async (tx) => {
    await tx.createSchema('sales');
    await tx.createTable('sales', 'orders', [{ name: 'id', type: 'int64' }, { name: 'status', type: 'varchar' }]);
    await tx.createTable('sales', 'customers', [{ name: 'id', type: 'int64' }]);
    await tx.createView('sales', 'open_orders', "SELECT * FROM sales.orders WHERE status = 'open'");
    await tx.addDataFile('sales', 'orders', { path: 'sales/orders/f1.parquet', recordCount: 3, fileSizeBytes: 812 });
    await tx.addDataFile('sales', 'customers', { path: 'sales/customers/f1.parquet', recordCount: 2, fileSizeBytes: 100 });
  });
  return { c, dir };
}

const long = 'x'.repeat(256);
const cases: [string, ErrorCode, (tx: Transaction) => Promise<unknown>][] = [
  ['table in an unknown schema', 'NOT_FOUND', (tx) => tx.createTable('nope', 't', [{ name: 'a', type: 'int64' }])],
  ['drop an unknown table', 'NOT_FOUND', (tx) => tx.dropTable('sales', 'nope')],
  ['drop an unknown schema', 'NOT_FOUND', (tx) => tx.dropSchema('nope')],
  ['rename an unknown table', 'NOT_FOUND', (tx) => tx.renameTable('sales', 'nope', 'x')],
  ['add a column to an unknown table', 'NOT_FOUND', (tx) => tx.addColumn('sales', 'nope', { name: 'a', type: 'int64' })],
  ['drop an unknown column', 'NOT_FOUND', (tx) => tx.dropColumn('sales', 'orders', 'nope')],
  ['rename an unknown column', 'NOT_FOUND', (tx) => tx.renameColumn('sales', 'orders', 'nope', 'x')],
  ['retype an unknown column', 'NOT_FOUND', (tx) => tx.alterColumnType('sales', 'orders', 'nope', 'int64')],
  ['add a file to an unknown table', 'NOT_FOUND', (tx) => tx.addDataFile('sales', 'nope', { path: 'a.parquet', recordCount: 1, fileSizeBytes: 1 })],
  ['remove an unknown data file', 'NOT_FOUND', (tx) => tx.removeDataFile('sales', 'orders', 999)],
  ['drop an unknown view', 'NOT_FOUND', (tx) => tx.dropView('sales', 'nope')],
  ['drop a table as a view', 'NOT_FOUND', (tx) => tx.dropView('sales', 'orders')],
  ['drop a view as a table', 'NOT_FOUND', (tx) => tx.dropTable('sales', 'open_orders')],
  ['create an existing schema', 'ALREADY_EXISTS', (tx) => tx.createSchema('main')],
  ['create an existing table', 'ALREADY_EXISTS', (tx) => tx.createTable('sales', 'orders', [{ name: 'a', type: 'int64' }])],
  ['create a table named like a view', 'ALREADY_EXISTS', (tx) => tx.createTable('sales', 'open_orders', [{ name: 'a', type: 'int64' }])],
  ['create a view named like a table', 'ALREADY_EXISTS', (tx) => tx.createView('sales', 'orders', 'SELECT 1')],
  ['rename onto an existing table', 'ALREADY_EXISTS', (tx) => tx.renameTable('sales', 'orders', 'customers')],
  ['add an existing column', 'ALREADY_EXISTS', (tx) => tx.addColumn('sales', 'orders', { name: 'status', type: 'varchar' })],
  ['rename onto an existing column', 'ALREADY_EXISTS', (tx) => tx.renameColumn('sales', 'orders', 'id', 'status')],
  ['an empty schema name', 'INVALID_ARGUMENT', (tx) => tx.createSchema('')],
  ['an over-long schema name', 'INVALID_ARGUMENT', (tx) => tx.createSchema(long)],
  ['an over-long table name', 'INVALID_ARGUMENT', (tx) => tx.createTable('sales', long, [{ name: 'a', type: 'int64' }])],
  ['a name with NUL', 'INVALID_ARGUMENT', (tx) => tx.createSchema('a\0b')],
  ['an over-long column name', 'INVALID_ARGUMENT', (tx) => tx.addColumn('sales', 'orders', { name: long, type: 'int64' })],
  ['a table without columns', 'INVALID_ARGUMENT', (tx) => tx.createTable('sales', 't', [])],
  ['an unknown column type', 'INVALID_ARGUMENT', (tx) => tx.createTable('sales', 't', [{ name: 'a', type: 'bigintt' }])],
  ['a column named twice', 'INVALID_ARGUMENT', (tx) => tx.createTable('sales', 't', [{ name: 'a', type: 'int64' }, { name: 'a', type: 'int32' }])],
  ['a negative record count', 'INVALID_ARGUMENT', (tx) => tx.addDataFile('sales', 'orders', { path: 'a.parquet', recordCount: -1, fileSizeBytes: 1 })],
  ['a negative file size', 'INVALID_ARGUMENT', (tx) => tx.addDataFile('sales', 'orders', { path: 'a.parquet', recordCount: 1, fileSizeBytes: -5 })],
  ['a fractional record count', 'INVALID_ARGUMENT', (tx) => tx.addDataFile('sales', 'orders', { path: 'a.parquet', recordCount: 1.5, fileSizeBytes: 1 })],
  ['an absolute file path', 'INVALID_ARGUMENT', (tx) => tx.addDataFile('sales', 'orders', { path: '/etc/passwd', recordCount: 1, fileSizeBytes: 1 })],
  ['a file path escaping the data path', 'INVALID_ARGUMENT', (tx) => tx.addDataFile('sales', 'orders', { path: '../x.parquet', recordCount: 1, fileSizeBytes: 1 })],
  ['a URL as file path', 'INVALID_ARGUMENT', (tx) => tx.addDataFile('sales', 'orders', { path: 's3://b/x.parquet', recordCount: 1, fileSizeBytes: 1 })],
  ['a delete file for another table\'s data file', 'INVALID_ARGUMENT', (tx) =>
    tx.addDeleteFile('sales', 'orders', { dataFileId: 1, path: 'd.parquet', deleteCount: 1, fileSizeBytes: 1 })],
  ['removing another table\'s data file', 'INVALID_ARGUMENT', (tx) => tx.removeDataFile('sales', 'orders', 1)],
  ['more deletes than rows', 'INVALID_ARGUMENT', (tx) =>
    tx.addDeleteFile('sales', 'orders', { dataFileId: 0, path: 'd.parquet', deleteCount: 4, fileSizeBytes: 1 })],
  ['a delete file that deletes nothing', 'INVALID_ARGUMENT', (tx) =>
    tx.addDeleteFile('sales', 'orders', { dataFileId: 0, path: 'd.parquet', deleteCount: 0, fileSizeBytes: 1 })],
  ['a negative delete file size', 'INVALID_ARGUMENT', (tx) =>
    tx.addDeleteFile('sales', 'orders', { dataFileId: 0, path: 'd.parquet', deleteCount: 1, fileSizeBytes: -1 })],
  // A default every read of an older file fills in: DuckDB must be able to read it as the column's type.
  ['a default that is no value of its column\'s type', 'INVALID_ARGUMENT', (tx) => tx.createTable('sales', 'n', [{ name: 'a', type: 'int32', default: 'soon' }])],
  ['a default outside its column\'s range', 'INVALID_ARGUMENT', (tx) => tx.addColumn('sales', 'customers', { name: 'b', type: 'int8', default: '300' })],
  ['a default that is no date', 'INVALID_ARGUMENT', (tx) => tx.addColumn('sales', 'customers', { name: 'd', type: 'date', default: '2026-02-30' })],
  ['dropping the only column', 'INVALID_ARGUMENT', (tx) => tx.dropColumn('sales', 'customers', 'id')],
  ['a view without SQL', 'INVALID_ARGUMENT', (tx) => tx.createView('sales', 'v', '  ')],
  ['a non-string option', 'INVALID_ARGUMENT', (tx) => tx.setOption('k', 5 as unknown as string)],
  // Stored as UTF-8, a lone surrogate would read back as U+FFFD: text that is not what was given.
  ['an option value with a lone surrogate', 'INVALID_ARGUMENT', (tx) => tx.setOption('k', 'a\uD800b')],
  ['a view in another dialect whose text has a lone surrogate', 'INVALID_ARGUMENT', (tx) => tx.createView('sales', 'v', 'SELECT \uDC00', { dialect: 'spark' })],
  ['dropping a non-empty schema without cascade', 'DEPENDENT_OBJECTS', (tx) => tx.dropSchema('sales')],
];

const logObjects = (dir: string) => logHead(path.join(dir, 'store'));

describe('bad input', () => {
  it.each(cases)('%s → %s, and the catalog is exactly as before', async (_label, code, call) => {
    const { c, dir } = await seeded();
    const before = { dump: await dumpCatalog(c), log: await logObjects(dir), options: await c.options() };
    let caught: unknown;
    await c.transaction((tx) => call(tx)).catch((e) => (caught = e));
    expect(isStrataError(caught, code), String(caught)).toBe(true);
    expect((caught as Error).message.length).toBeGreaterThan(20);
    expect({ dump: await dumpCatalog(c), log: await logObjects(dir), options: await c.options() }).toEqual(before);
  });

  it('a delete file whose id cannot be claimed replaces nothing: the one before it stays, in the transaction and in what it commits', async () => {
    const dir = await tempDir();
    let refuse = false;
    const open = () =>
      openCatalog({
        dir,
        logLayout: 'objects',
        store: new FaultyStore(new DirectoryStore(path.join(dir, 'store')), {
          beforeCreate: () => {
            if (refuse) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
          },
        }),
      });
    let c = await open();
    let dataFileId = 0;
    await c.transaction(async (tx) => {
      await tx.createTable('main', 't', [{ name: 'id', type: 'int64' }]);
      dataFileId = await tx.addDataFile('main', 't', { path: 'f.parquet', recordCount: 10, fileSizeBytes: 1 });
      await tx.addDeleteFile('main', 't', { dataFileId, path: 'd1.parquet', deleteCount: 1, fileSizeBytes: 1 });
    });
    await c.close();
    // A new process holds no block of file ids: the next delete file's id is claimed through the log.
    c = await open();
    const before = await dumpCatalog(c);
    await c.transaction(async (tx) => {
      refuse = true;
      const failed = await tx.addDeleteFile('main', 't', { dataFileId, path: 'd2.parquet', deleteCount: 2, fileSizeBytes: 1 }).catch((e: unknown) => e);
      refuse = false;
      expect(String(failed)).toContain('permission denied');
      expect((await tx.reads().deleteFiles('main', 't')).map((d) => d.path)).toEqual(['d1.parquet']);
    });
    expect(await dumpCatalog(c)).toEqual(before);
  });

  it('messages say what was asked, what exists and what to do', async () => {
    const { c } = await seeded();
    const message = async (call: (tx: Transaction) => Promise<unknown>) =>
      (await c.transaction((tx) => call(tx)).catch((e: Error) => e)) as Error;
    expect((await message((tx) => tx.dropTable('sales', 'ordrs'))).message).toMatch(/"sales"\."ordrs".*"orders".*"customers"|"sales"\."ordrs".*"customers".*"orders"/);
    expect((await message((tx) => tx.dropSchema('sales'))).message).toMatch(/cascade/);
    expect((await message((tx) => tx.createTable('sale', 't', [{ name: 'a', type: 'int64' }]))).message).toMatch(/"sale".*"main".*"sales"/);
    expect((await message((tx) => tx.dropColumn('sales', 'orders', 'stat'))).message).toMatch(/"stat".*"id", "status"/);
  });

  it('refuses bad reader options and commit metadata without touching anything', async () => {
    const { c, dir } = await seeded();
    const log = await logObjects(dir);
    for (const opts of [
      { snapshot: -1 },
      { snapshot: 1.5 },
      { snapshot: '1' },
      { bogus: 1 },
      { snapshot: 1, tag: 'x' },
      { timestamp: 'yesterday' },
      { timestamp: Number.NaN },
      { timestamp: new Date('nope') },
      { timestamp: { ms: 5 } },
      { previous: 1 },
      { tag: '' },
    ]) {
      await expect(c.reader(opts as never)).rejects.toSatisfy((e) => isStrataError(e, 'INVALID_ARGUMENT'));
    }
    await expect(c.transaction(async () => undefined, { author: 5 } as never)).rejects.toSatisfy((e) => isStrataError(e, 'INVALID_ARGUMENT'));
    // A lone surrogate would read back as U+FFFD: a message that is not the one given.
    await expect(c.transaction((tx) => tx.createSchema('m'), { message: 'fix \uD800' })).rejects.toSatisfy((e) => isStrataError(e, 'INVALID_ARGUMENT'));
    await expect(c.transaction(async () => undefined, { maintenance: 'yes' } as never)).rejects.toSatisfy((e) =>
      isStrataError(e, 'INVALID_ARGUMENT'),
    );
    expect(await logObjects(dir)).toEqual(log);
  });

  it('a read-only catalog refuses writes, and refuses to create a catalog', async () => {
    const { c, dir } = await seeded();
    await c.close();
    const ro = await openCatalog({ dir, readOnly: true });
    await expect(ro.transaction(async (tx) => void (await tx.createSchema('x')))).rejects.toSatisfy((e) => isStrataError(e, 'READ_ONLY'));
    const empty = await tempDir();
    await expect(openCatalog({ dir: empty, readOnly: true })).rejects.toSatisfy((e) => isStrataError(e, 'NOT_FOUND'));
  });
});
