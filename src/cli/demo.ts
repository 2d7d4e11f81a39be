// `strata demo`: builds a small but realistic history through the public API (create, load, rename, add a
// column, delete rows, drop a table) and shows what readers see at several snapshots; then GC on a copy.
import { cp, lstat, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Catalog } from '../catalog/catalog.js';
import { DirectoryStore } from '../store/directory-store.js';
import { StrataError } from '../errors.js';
import { makeDirs } from '../make-dirs.js';
import { DemoEngine } from './demo-engine.js';
import { renderChanges } from './format.js';
import { snapshotTable } from './history.js';
import { sketch, svg, timelineOf } from './timeline.js';
import { tableText } from './sql.js';
import { describeCatalog, describeTable, renderCatalog, renderTable } from './show.js';

/** Orders `first`..`first + n - 1`, as SQL: a status and an amount that vary with the id. */
const orderRows = (first: number, n: number, ids = `${first} + i`) =>
  `SELECT (${ids})::BIGINT AS id, CASE WHEN i % 10 = 0 THEN 'returned' ELSE 'shipped' END AS status, ` +
  `((i * 37) % 20000 / 100.0 + 5)::DECIMAL(12,2) AS amount FROM range(${n}) t(i)`;

/** What the demo leaves in each directory it makes, so that only such a directory is ever replaced. */
const MARKER = '.strata-demo';

/** Whether `dir` is missing or empty (the demo may use it), a demo's (it may be replaced), or someone else's. */
async function claim(dir: string): Promise<'free' | 'demo'> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'free';
    throw e;
  }
  if (entries.length === 0) return 'free';
  if (await lstat(path.join(dir, MARKER)).then((s) => s.isFile(), () => false)) return 'demo';
  const shown = entries.slice(0, 3).map((e) => JSON.stringify(e)).join(', ') + (entries.length > 3 ? `, … (${entries.length} entries)` : '');
  throw new StrataError(
    'ALREADY_EXISTS',
    `${dir} holds ${shown} and no ${MARKER}: it is not a directory strata demo made, so the demo neither writes into it ` +
      'nor replaces it (not with --force either). Give the demo a new or empty directory',
  );
}

/** Removes a directory the demo made; nothing where there is none; any other directory is ALREADY_EXISTS, untouched. */
export async function removeDemo(dir: string): Promise<void> {
  if ((await claim(dir)) === 'demo') await rm(dir, { recursive: true, force: true });
}

export async function runDemo(dir: string, print: (s: string) => void): Promise<void> {
  await makeDemoDir(dir);
  const catalog = await Catalog.open({ dir });
  try {
    if ((await catalog.snapshots()).length > 1) {
      throw new StrataError('ALREADY_EXISTS', `${dir} already holds a catalog with history; give the demo an empty directory (or --force)`);
    }
    const engine = await DemoEngine.start(catalog, new DirectoryStore(path.join(dir, 'store')));
    const orders = [
      { name: 'id', type: 'int64', nullable: false },
      { name: 'status', type: 'varchar' },
      { name: 'amount', type: 'decimal(12,2)' },
    ];
    const load = await catalog.transaction(
      async (tx) => {
        await tx.createSchema('sales');
        await tx.createTable('sales', 'orders', orders);
        await tx.createTable('sales', 'customers', [{ name: 'id', type: 'int64' }, { name: 'name', type: 'varchar' }]);
      },
      { author: 'etl', message: 'create the sales tables' },
    );
    const january = await engine.dataFile('sales', 'orders', 'sales/orders/2026-01.parquet', orderRows(1, 1200));
    const february = await engine.dataFile('sales', 'orders', 'sales/orders/2026-02.parquet', orderRows(1201, 900));
    const customers = await engine.dataFile('sales', 'customers', 'sales/customers/all.parquet', `SELECT i::BIGINT AS id, 'customer ' || i AS name FROM range(310) t(i)`);
    const firstLoad = await catalog.transaction(
      async (tx) => {
        await tx.addDataFile('sales', 'orders', january);
        await tx.addDataFile('sales', 'orders', february);
        await tx.addDataFile('sales', 'customers', customers);
      },
      { author: 'etl', message: 'load January and February' },
    );
    let march = 0;
    // March holds its last 60 orders twice (ids 2101–2160 again): found out later.
    const marchFile = await engine.dataFile('sales', 'orders', 'sales/orders/2026-03.parquet', orderRows(2101, 1050, 'CASE WHEN i < 990 THEN 2101 + i ELSE 2101 + i - 990 END'));
    const marchLoad = await catalog.transaction(
      async (tx) => {
        march = await tx.addDataFile('sales', 'orders', marchFile);
      },
      { author: 'etl', message: 'load March' },
    );
    // The board decides on the March numbers: pin what the report read.
    await catalog.createTag('board_report_2026_03', marchLoad.snapshot!);
    const renamed = await catalog.transaction((tx) => tx.renameTable('sales', 'orders', 'order_history'), {
      author: 'dba',
      message: 'orders become order_history',
    });
    await catalog.transaction((tx) => tx.addColumn('sales', 'order_history', { name: 'customer_id', type: 'int64' }), {
      author: 'dba',
      message: 'link orders to customers',
    });
    // A GDPR request erases 35 January orders: a DELETE in SQL (DuckDB writes the positional delete file), one commit.
    await catalog.transaction((tx) => tx.sql('DELETE FROM sales.order_history WHERE id IN (SELECT 1 + i * 31 FROM range(35) t(i))'), {
      author: 'gdpr-job',
      message: 'erase 35 orders on request',
    });
    const dropped = await catalog.transaction((tx) => tx.dropTable('sales', 'customers'), {
      author: 'dba',
      message: 'customers move to the CRM lake',
    });
    // Later, March turns out to hold duplicated orders: finance restates it.
    const restated = await engine.dataFile('sales', 'order_history', 'sales/order_history/2026-03-restated.parquet', `SELECT *, (id % 310)::BIGINT AS customer_id FROM (${orderRows(2101, 990)})`);
    engine.close();
    await catalog.transaction(
      async (tx) => {
        await tx.removeDataFile('sales', 'order_history', march);
        await tx.addDataFile('sales', 'order_history', restated);
      },
      { author: 'finance', message: 'restate March: 60 duplicated orders', extraInfo: '{"ticket":"FIN-2231"}' },
    );
    // April arrives as a CSV export: load writes it as Parquet with the table's field ids, one commit.
    const april = path.join(await mkdtemp(path.join(tmpdir(), 'strata-demo-')), 'orders-2026-04.csv');
    await writeFile(april, `id,status,amount,customer_id\n${Array.from({ length: 40 }, (_, i) => `${3101 + i},shipped,${(19.5 + i).toFixed(2)},${i % 310}`).join('\n')}\n`);
    const aprilLoad = await catalog.load('sales', 'order_history', april);
    await rm(path.dirname(april), { recursive: true, force: true });

    print(`A catalog with a history, in ${dir}:\n`);
    print(await snapshotTable(catalog, await catalog.snapshots()));
    for (const at of [load.snapshot!, firstLoad.snapshot!, renamed.snapshot! + 1, dropped.snapshot!, dropped.snapshot! + 1]) {
      const r = await catalog.reader({ snapshot: at });
      print(`\n${renderCatalog(await describeCatalog(r))}`);
      await r.close();
    }

    print('\nTime travel: the same table, read at two snapshots.');
    const old = await catalog.reader({ snapshot: firstLoad.snapshot! });
    print(`\n${renderTable(await describeTable(old, 'sales', 'orders'))}`);
    const now = await catalog.reader();
    print(`\n${renderTable(await describeTable(now, 'sales', 'order_history'))}`);
    try {
      await now.table('sales', 'orders');
    } catch (e) {
      print(`\nAsking the newest snapshot for sales.orders: ${(e as StrataError).code}: ${(e as Error).message}`);
    }
    try {
      await catalog.reader({ snapshot: 99 });
    } catch (e) {
      print(`Asking for snapshot 99: ${(e as StrataError).code}: ${(e as Error).message}`);
    }
    await Promise.all([old.close(), now.close()]);

    print('\nReplaying a decision: the board report was built on the snapshot tagged board_report_2026_03.');
    const decision = await catalog.reader({ tag: 'board_report_2026_03' });
    // The rows a query at the snapshot counts: its files' rows less the rows their delete files remove.
    const rows = async (r: typeof decision, name: string) =>
      (await catalog.sql(`SELECT count(*) AS n FROM sales.${name} AT (VERSION => ${r.snapshot.id})`)).rows[0]!.n as bigint;
    print(`  at the decision (snapshot ${decision.snapshot.id}): ${await rows(decision, 'orders')} rows in sales.orders`);
    const today = await catalog.reader();
    print(`  today (snapshot ${today.snapshot.id}): ${await rows(today, 'order_history')} rows in sales.order_history (the same table, renamed; 35 rows erased, 60 duplicates restated away, 40 loaded)`);
    const newest = today.snapshot.id;
    const changed = await catalog.changes('sales', 'order_history', { from: decision.snapshot.id + 1, to: today.snapshot.id });
    print(`\n${renderChanges('sales.order_history', String(decision.snapshot.id + 1), String(today.snapshot.id), changed)}`);
    print(`\nWho changed it since:\n${await snapshotTable(catalog, await catalog.snapshots({ from: decision.snapshot.id + 1, table: { schema: 'sales', table: 'order_history' } }))}`);
    await Promise.all([decision.close(), today.close()]);
    print(`\ncatalog.load('sales', 'order_history', 'orders-2026-04.csv'): ${aprilLoad.rows} rows as snapshot ${aprilLoad.snapshot} (${aprilLoad.files[0]!.path})`);
    await sqlTour(catalog, print);
    print(
      `\nExplore it: strata snapshots --dir ${dir} --table sales.order_history   |   ` +
        `strata show --dir ${dir} --tag board_report_2026_03 sales.orders   |   strata diff --dir ${dir} sales.order_history ${marchLoad.snapshot! + 1} ${newest}   |   ` +
        `strata sql --dir ${dir} "SELECT status, count(*) FROM sales.orders AT (VERSION => 'board_report_2026_03') GROUP BY status"`,
    );
  } finally {
    await catalog.close();
  }
  await gcOnACopy(dir, print);
}

/** The same questions in SQL, over the real Parquet files: at the tag, now, and the rows in between. */
async function sqlTour(catalog: Catalog, print: (s: string) => void): Promise<void> {
  const show = async (what: string, q: string) => {
    const started = performance.now();
    const r = await catalog.sql(q);
    print(`\n${what}\n  ${q}\n${await tableText(r, started)}`);
  };
  print('\nSQL at any snapshot (catalog.sql, strata sql): DuckDB reads the Parquet files each snapshot names.');
  await show('What the board saw:', `SELECT count(*) AS orders, sum(amount) AS revenue FROM sales.orders AT (VERSION => 'board_report_2026_03')`);
  await show('Today (the same table, renamed, with a column added):', 'SELECT count(*) AS orders, sum(amount) AS revenue, count(customer_id) AS linked FROM sales.order_history');
  await show(
    'The delta: rows the decision counted that are gone today (35 erased, 60 duplicates), an anti join of the table with its past:',
    `SELECT status, count(*) AS orders, sum(amount) AS amount FROM (SELECT id, status, amount FROM sales.orders AT (VERSION => 'board_report_2026_03') EXCEPT ALL SELECT id, status, amount FROM sales.order_history) GROUP BY status ORDER BY status`,
  );
}

async function makeDemoDir(dir: string): Promise<void> {
  await claim(dir);
  makeDirs(dir);
  await writeFile(path.join(dir, MARKER), 'made by strata demo; strata demo --force may replace this directory\n');
}

/** GC is the only way history goes away, so the demo shows it on a copy and leaves the lake above whole. */
async function gcOnACopy(dir: string, print: (s: string) => void): Promise<void> {
  const copy = `${dir.replace(/\/+$/, '')}-gc`;
  await removeDemo(copy);
  await cp(dir, copy, { recursive: true }); // the marker with it
  const store = new DirectoryStore(path.join(copy, 'store'));
  const objects = async () => {
    let n = 0;
    for await (const _ of store.list('data/')) n++;
    return n;
  };
  const c = await Catalog.open({ dir: copy });
  try {
    print(`\nGC, on a copy of the lake in ${copy} (the lake above keeps its whole history):`);
    const newest = (await c.snapshots()).at(-1)!.id;
    const advanced = await c.advanceRetainFrom({ snapshot: newest });
    print(`  advanceRetainFrom({ snapshot: ${newest} }) → retain-from ${advanced.retainFrom}: history before it is no longer readable…`);
    try {
      await c.reader({ snapshot: 2 });
    } catch (e) {
      print(`  reading snapshot 2: ${(e as StrataError).code}: ${(e as Error).message}`);
    }
    const tagged = await c.reader({ tag: 'board_report_2026_03' });
    print(`  …except tagged snapshots: board_report_2026_03 still reads snapshot ${tagged.snapshot.id} (${(await tagged.dataFiles('sales', 'orders')).length} files in sales.orders)`);
    await tagged.close();
    const first = await c.excise();
    print(`  excise(): removed ${first.versions} versions and ${first.snapshots} snapshot records; ${first.files} files scheduled (the tag protects what its snapshot reads)`);
    const timeline = await timelineOf(c);
    await writeFile(path.join(copy, 'timeline.svg'), svg(timeline));
    print(`  strata timeline (also drawn in ${path.join(copy, 'timeline.svg')}):\n${sketch(timeline).replace(/^/gm, '    ')}`);
    await c.dropTag('board_report_2026_03');
    const second = await c.excise();
    print(`  dropTag, excise() again: removed ${second.versions} versions and ${second.snapshots} snapshot records; ${second.files} files scheduled for deletion`);
    const before = await objects();
    // Zero grace for the demo; the default waits 2 days, for readers that still have a file open.
    const reclaimed = await c.reclaimFiles({ graceMs: 0 });
    print(`  reclaimFiles({ graceMs: 0 }): deleted ${reclaimed.deleted.join(', ')} — ${before} objects under data/ before, ${await objects()} after`);
    // The excised rows are still in the log objects that wrote them: compaction replaces those with stubs.
    const mentioning = async (text: string) => {
      let n = 0;
      // Either layout: one object per entry, or segment files of entries.
      for (const prefix of ['log/', 'segments/']) for await (const { key } of store.list(prefix)) if (Buffer.from((await store.get(key))!).includes(text)) n++;
      return n;
    };
    const gone = reclaimed.deleted[0]!;
    const mentionedBefore = await mentioning(gone);
    const checkpoint = await c.checkpoint();
    // Zero age for the demo; the default waits an hour, for processes that still follow the older entries.
    const compacted = await c.compactLog({ minAgeMs: 0 });
    const pruned = await c.pruneCheckpoints({ keep: 1, minAgeMs: 0 });
    print(
      `  checkpoint(), compactLog({ minAgeMs: 0 }), pruneCheckpoints({ keep: 1, minAgeMs: 0 }): ${compacted.entries} log entries ` +
        `replaced by stubs through entry ${checkpoint.seq}, ${pruned.deleted.length} older checkpoints deleted — log objects naming ` +
        `${gone}: ${mentionedBefore} before, ${await mentioning(gone)} after`,
    );
    print(`  The policy in one command: strata gc --dir ${copy} --keep 30d --grace 2d --dry-run`);
  } finally {
    await c.close();
  }
}
