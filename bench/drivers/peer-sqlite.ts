// The peer: DuckLake's catalog tables in SQLite (better-sqlite3), laid out as DuckLake's specification gives
// them, queried with DuckLake's visibility filter, in WAL mode, with the indexes a competent operator would
// add for these queries. Commits follow DuckLake's steps: read the latest snapshot, check for conflicting
// snapshots since, write the new rows, the table's stats row, the snapshot and its changes, all in one
// transaction. A read opened for one question checks its snapshot first; a listing joins each data file to
// its delete file. A drop ends
// what DuckLake's DropTables ends, by id list: the table rows, their columns and their data files.
import Database from 'better-sqlite3';
import * as path from 'node:path';
import { COLUMNS, type ColumnSpec, type Driver, type DriverOptions, type FileSpec } from './driver.js';

/** What only the large-transaction section asks of the peer (Strata's side is its own API there). */
export interface PeerDriver extends Driver {
  /** Creates schema `name` holding `tables` (one int32 column x each), in one commit. */
  createSchema(name: string, tables: string[]): Promise<number>;
  dropTable(name: string): Promise<number>;
  /** DROP SCHEMA ... CASCADE: the schema, its tables and what they hold, in one commit. */
  dropSchema(name: string): Promise<number>;
}

const DDL = `
CREATE TABLE ducklake_snapshot(snapshot_id INTEGER PRIMARY KEY, snapshot_time INTEGER, schema_version BIGINT,
  next_catalog_id BIGINT, next_file_id BIGINT);
CREATE TABLE ducklake_snapshot_changes(snapshot_id INTEGER PRIMARY KEY, changes_made TEXT, author TEXT,
  commit_message TEXT, commit_extra_info TEXT);
CREATE TABLE ducklake_schema_versions(begin_snapshot BIGINT, schema_version BIGINT);
CREATE TABLE ducklake_schema(schema_id BIGINT, schema_uuid TEXT, begin_snapshot BIGINT, end_snapshot BIGINT,
  schema_name TEXT, path TEXT, path_is_relative BOOLEAN);
CREATE TABLE ducklake_table(table_id BIGINT, table_uuid TEXT, begin_snapshot BIGINT, end_snapshot BIGINT,
  schema_id BIGINT, table_name TEXT, path TEXT, path_is_relative BOOLEAN);
CREATE TABLE ducklake_column(column_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, table_id BIGINT,
  column_order BIGINT, column_name TEXT, column_type TEXT, initial_default TEXT, default_value TEXT,
  nulls_allowed BOOLEAN, parent_column BIGINT);
CREATE TABLE ducklake_data_file(data_file_id INTEGER PRIMARY KEY, table_id BIGINT, begin_snapshot BIGINT,
  end_snapshot BIGINT, file_order BIGINT, path TEXT, path_is_relative BOOLEAN, file_format TEXT,
  record_count BIGINT, file_size_bytes BIGINT, footer_size BIGINT, row_id_start BIGINT, partition_id BIGINT,
  encryption_key TEXT, partial_file_info TEXT, mapping_id BIGINT);
CREATE TABLE ducklake_delete_file(delete_file_id INTEGER PRIMARY KEY, table_id BIGINT, begin_snapshot BIGINT,
  end_snapshot BIGINT, data_file_id BIGINT, path TEXT, path_is_relative BOOLEAN, format TEXT, delete_count BIGINT,
  file_size_bytes BIGINT, footer_size BIGINT, encryption_key TEXT);
CREATE TABLE ducklake_table_stats(table_id INTEGER PRIMARY KEY, record_count BIGINT, next_row_id BIGINT,
  file_size_bytes BIGINT);
-- The indexes a competent operator adds for DuckLake's lookups by name, by id and by table.
CREATE INDEX schema_by_name ON ducklake_schema(schema_name, begin_snapshot);
CREATE INDEX table_by_name ON ducklake_table(schema_id, table_name, begin_snapshot);
CREATE INDEX table_by_id ON ducklake_table(table_id, end_snapshot);
CREATE INDEX column_by_table ON ducklake_column(table_id, begin_snapshot);
CREATE INDEX data_file_by_table ON ducklake_data_file(table_id, begin_snapshot);
CREATE INDEX delete_file_by_table ON ducklake_delete_file(table_id, begin_snapshot);
CREATE INDEX snapshot_by_time ON ducklake_snapshot(snapshot_time);
-- DuckLake has no snapshot tags; the table an operator would add for them.
CREATE TABLE strata_snapshot_tag(tag_name TEXT PRIMARY KEY, snapshot_id BIGINT, created_at INTEGER) WITHOUT ROWID;
`;

const VISIBLE = (t: string) => `@s >= ${t}.begin_snapshot AND (@s < ${t}.end_snapshot OR ${t}.end_snapshot IS NULL)`;

export async function openPeer(opts: DriverOptions): Promise<PeerDriver> {
  const db = new Database(path.join(opts.dir, 'ducklake.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${opts.durable ? 'FULL' : 'NORMAL'}`);
  db.pragma('cache_size = -65536');
  // A catalog an earlier process made is opened as it is: the large-transaction section times one
  // operation per process.
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'ducklake_snapshot'").get() === undefined) {
    db.exec(DDL);
    db.exec(`INSERT INTO ducklake_snapshot VALUES (0, ${Date.now()}, 0, 1, 0);
      INSERT INTO ducklake_snapshot_changes VALUES (0, 'created_schema:"main"', NULL, NULL, NULL);
      INSERT INTO ducklake_schema_versions VALUES (0, 0);
      INSERT INTO ducklake_schema VALUES (0, 'uuid-main', 0, NULL, 'main', 'main/', 1);`);
  }

  const q = {
    latest: db.prepare(
      'SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM ducklake_snapshot WHERE snapshot_id = (SELECT MAX(snapshot_id) FROM ducklake_snapshot)',
    ),
    changesSince: db.prepare('SELECT changes_made FROM ducklake_snapshot_changes WHERE snapshot_id > ?'),
    insertSnapshot: db.prepare('INSERT INTO ducklake_snapshot VALUES (?, ?, ?, ?, ?)'),
    snapshotById: db.prepare('SELECT snapshot_id FROM ducklake_snapshot WHERE snapshot_id = ?'),
    snapshotAtTime: db.prepare(
      'SELECT snapshot_id FROM ducklake_snapshot WHERE snapshot_time <= ? ORDER BY snapshot_time DESC, snapshot_id DESC LIMIT 1',
    ),
    snapshotByTag: db.prepare('SELECT snapshot_id FROM strata_snapshot_tag WHERE tag_name = ?'),
    insertTag: db.prepare('INSERT INTO strata_snapshot_tag VALUES (?, ?, ?)'),
    timeRange: db.prepare('SELECT MIN(snapshot_time) AS first, MAX(snapshot_time) AS newest FROM ducklake_snapshot'),
    insertChanges: db.prepare('INSERT INTO ducklake_snapshot_changes VALUES (?, ?, NULL, NULL, NULL)'),
    insertSchemaVersion: db.prepare('INSERT INTO ducklake_schema_versions VALUES (?, ?)'),
    tableAt: db.prepare(
      `SELECT t.table_id, t.table_uuid, t.table_name FROM ducklake_schema s JOIN ducklake_table t ON t.schema_id = s.schema_id
       WHERE s.schema_name = @schema AND ${VISIBLE('s')} AND t.table_name = @name AND ${VISIBLE('t')}`,
    ),
    columnsAt: db.prepare(
      `SELECT column_id, column_name, column_type, column_order, nulls_allowed FROM ducklake_column c
       WHERE table_id = @table AND ${VISIBLE('c')} ORDER BY column_order`,
    ),
    // DuckLake's listing: each data file beside the delete file that applies to it at the snapshot, in file order.
    filesAt: db.prepare(
      `SELECT data.data_file_id, data.path, data.file_format, data.record_count, data.file_size_bytes, data.footer_size,
         data.row_id_start, data.begin_snapshot, data.end_snapshot, del.path AS delete_path, del.delete_count
       FROM ducklake_data_file AS data
       LEFT JOIN (SELECT * FROM ducklake_delete_file WHERE table_id = @table AND ${VISIBLE('ducklake_delete_file')}) AS del
         USING (data_file_id)
       WHERE data.table_id = @table AND ${VISIBLE('data')}
       ORDER BY data.file_order, data.data_file_id`,
    ),
    schemaAt: db.prepare(`SELECT schema_id FROM ducklake_schema s WHERE schema_name = @schema AND ${VISIBLE('s')}`),
    insertSchema: db.prepare('INSERT INTO ducklake_schema VALUES (?, ?, ?, NULL, ?, ?, 1)'),
    endSchema: db.prepare('UPDATE ducklake_schema SET end_snapshot = ? WHERE schema_id = ? AND end_snapshot IS NULL'),
    liveTablesIn: db.prepare('SELECT table_id FROM ducklake_table WHERE schema_id = ? AND end_snapshot IS NULL'),
    insertTable: db.prepare('INSERT INTO ducklake_table VALUES (?, ?, ?, NULL, ?, ?, ?, 1)'),
    endTable: db.prepare('UPDATE ducklake_table SET end_snapshot = ? WHERE table_id = ? AND end_snapshot IS NULL'),
    insertColumn: db.prepare('INSERT INTO ducklake_column VALUES (?, ?, NULL, ?, ?, ?, ?, NULL, NULL, 1, NULL)'),
    insertStats: db.prepare('INSERT INTO ducklake_table_stats VALUES (?, 0, 0, 0)'),
    stats: db.prepare('SELECT record_count, next_row_id, file_size_bytes FROM ducklake_table_stats WHERE table_id = ?'),
    updateStats: db.prepare('UPDATE ducklake_table_stats SET record_count = ?, next_row_id = ?, file_size_bytes = ? WHERE table_id = ?'),
    endOldest: db.prepare(
      `UPDATE ducklake_data_file SET end_snapshot = ? WHERE data_file_id IN
         (SELECT data_file_id FROM ducklake_data_file WHERE table_id = ? AND end_snapshot IS NULL ORDER BY data_file_id LIMIT ?)
       RETURNING record_count, file_size_bytes`,
    ),
    insertFile: db.prepare(
      "INSERT INTO ducklake_data_file VALUES (?, ?, ?, NULL, NULL, ?, 1, 'parquet', ?, ?, NULL, ?, NULL, NULL, NULL, NULL)",
    ),
  };

  interface Latest {
    snapshot_id: number;
    schema_version: number;
    next_catalog_id: number;
    next_file_id: number;
  }
  /** DuckLake's commit: new snapshot from the latest, conflict check, the caller's rows, snapshot + changes. */
  const commit = (schemaChange: boolean, write: (s: number, latest: Latest) => { changes: string[]; nextCatalogId: number; nextFileId: number }) =>
    db
      .transaction(() => {
        const latest = q.latest.get() as Latest;
        q.changesSince.all(latest.snapshot_id);
        const s = latest.snapshot_id + 1;
        const out = write(s, latest);
        const schemaVersion = latest.schema_version + (schemaChange ? 1 : 0);
        q.insertSnapshot.run(s, Date.now(), schemaVersion, out.nextCatalogId, out.nextFileId);
        q.insertChanges.run(s, out.changes.join(','));
        if (schemaChange) q.insertSchemaVersion.run(s, schemaVersion);
        return s;
      })
      .immediate();

  /** Tables `names` in schema `schemaId` from catalog id `id` on; returns the next free id. */
  const insertTables = (s: number, schemaId: number, schema: string, names: string[], columns: ColumnSpec[], id: number, changes: string[]) => {
    for (const name of names) {
      q.insertTable.run(id, `uuid-${id}`, s, schemaId, name, `${name}/`);
      columns.forEach((c, i) => q.insertColumn.run(i + 1, s, id, i + 1, c.name, c.type));
      q.insertStats.run(id);
      changes.push(`created_table:"${schema}"."${name}"`);
      id++;
    }
    return id;
  };
  // DuckLake's FlushDrop: one UPDATE per catalog table with the dropped ids as a literal list.
  const endTables = (s: number, ids: number[]) => {
    for (const t of ['ducklake_table', 'ducklake_column', 'ducklake_data_file']) {
      db.prepare(`UPDATE ${t} SET end_snapshot = ? WHERE end_snapshot IS NULL AND table_id IN (${ids.join(', ')})`).run(s);
    }
  };

  // DuckLake opens a transaction at a snapshot by reading that snapshot's row first.
  const checkSnapshot = (s: number) => {
    if (q.snapshotById.get(s) === undefined) throw new Error(`peer: no snapshot ${s}`);
  };
  const tableAt = (s: number, name: string) => q.tableAt.get({ schema: 'main', name, s }) as { table_id: number } | undefined;
  const resolve = (snapshot: number, table: string) => {
    const t = tableAt(snapshot, table);
    if (!t) throw new Error(`peer: no table ${table} at ${snapshot}`);
    return { id: t.table_id, columns: q.columnsAt.all({ table: t.table_id, s: snapshot }).length };
  };
  /**
   * One commit into `table`: its `remove` oldest live files get an end_snapshot (DuckLake's compaction and
   * overwrite; none for a plain insert), `files` are inserted, and its stats row follows.
   */
  const writeFiles = (table: string, remove: number, files: FileSpec[]) =>
    commit(false, (s, latest) => {
      const t = tableAt(latest.snapshot_id, table)!;
      const stats = q.stats.get(t.table_id) as { record_count: number; next_row_id: number; file_size_bytes: number };
      const ended = remove === 0 ? [] : (q.endOldest.all(s, t.table_id, remove) as { record_count: number; file_size_bytes: number }[]);
      let fileId = latest.next_file_id;
      let rowId = stats.next_row_id;
      let rows = -ended.reduce((n, f) => n + f.record_count, 0);
      let bytes = -ended.reduce((n, f) => n + f.file_size_bytes, 0);
      for (const f of files) {
        q.insertFile.run(fileId++, t.table_id, s, f.path, f.rows, f.bytes, rowId);
        rowId += f.rows;
        rows += f.rows;
        bytes += f.bytes;
      }
      q.updateStats.run(stats.record_count + rows, rowId, stats.file_size_bytes + bytes, t.table_id);
      const changes = [...(ended.length > 0 ? [`deleted_from_table:${t.table_id}`] : []), `inserted_into_table:${t.table_id}`];
      return { changes, nextCatalogId: latest.next_catalog_id, nextFileId: fileId };
    });
  const list = (snapshot: number, tableId: number) => {
    let n = 0;
    for (const _ of q.filesAt.iterate({ table: tableId, s: snapshot })) n++;
    return n;
  };

  return {
    side: 'peer',
    durability: opts.durable ? 'SQLite WAL, synchronous=FULL: WAL fsync per commit' : 'SQLite WAL, synchronous=NORMAL: no fsync per commit',
    createTables: async (names, columns = COLUMNS) =>
      commit(true, (s, latest) => {
        const changes: string[] = [];
        const id = insertTables(s, 0, 'main', names, columns, latest.next_catalog_id, changes);
        return { changes, nextCatalogId: id, nextFileId: latest.next_file_id };
      }),
    createSchema: async (name, tables) =>
      commit(true, (s, latest) => {
        const schemaId = latest.next_catalog_id;
        q.insertSchema.run(schemaId, `uuid-${schemaId}`, s, name, `${name}/`);
        const changes = [`created_schema:"${name}"`];
        const id = insertTables(s, schemaId, name, tables, [{ name: 'x', type: 'int32' }], schemaId + 1, changes);
        return { changes, nextCatalogId: id, nextFileId: latest.next_file_id };
      }),
    dropTable: async (name) =>
      commit(true, (s, latest) => {
        const t = tableAt(latest.snapshot_id, name)!;
        endTables(s, [t.table_id]);
        return { changes: [`dropped_table:${t.table_id}`], nextCatalogId: latest.next_catalog_id, nextFileId: latest.next_file_id };
      }),
    dropSchema: async (name) =>
      commit(true, (s, latest) => {
        const { schema_id } = q.schemaAt.get({ schema: name, s: latest.snapshot_id }) as { schema_id: number };
        const ids = (q.liveTablesIn.all(schema_id) as { table_id: number }[]).map((t) => t.table_id);
        if (ids.length > 0) endTables(s, ids);
        q.endSchema.run(s, schema_id);
        const changes = [...ids.map((id) => `dropped_table:${id}`), `dropped_schema:${schema_id}`];
        return { changes, nextCatalogId: latest.next_catalog_id, nextFileId: latest.next_file_id };
      }),
    renameTables: async (pairs) =>
      commit(true, (s, latest) => {
        const changes: string[] = [];
        for (const [from, to] of pairs) {
          const t = tableAt(latest.snapshot_id, from)!;
          q.endTable.run(s, t.table_id);
          q.insertTable.run(t.table_id, `uuid-${t.table_id}`, s, 0, to, `${to}/`);
          changes.push(`altered_table:${t.table_id}`);
        }
        return { changes, nextCatalogId: latest.next_catalog_id, nextFileId: latest.next_file_id };
      }),
    addFiles: async (table, files: FileSpec[]) => writeFiles(table, 0, files),
    replaceFiles: async (table, remove, files: FileSpec[]) => writeFiles(table, remove, files),
    resolve: async (snapshot, table) => resolve(snapshot, table).columns,
    resolveOnce: async (snapshot, table) =>
      db.transaction(() => {
        checkSnapshot(snapshot);
        return resolve(snapshot, table).columns;
      })(),
    listFiles: async (snapshot, table) => list(snapshot, resolve(snapshot, table).id),
    plan: async (snapshot, table) =>
      db.transaction(() => {
        checkSnapshot(snapshot);
        const t = resolve(snapshot, table);
        return list(snapshot, t.id);
      })(),
    createTag: async (name, snapshot) => {
      q.insertTag.run(name, snapshot, Date.now());
    },
    // In a read transaction, as a reader that goes on to query at that snapshot would.
    snapshotBy: async (sel) =>
      db.transaction(() => {
        const row = ('id' in sel ? q.snapshotById.get(sel.id) : 'time' in sel ? q.snapshotAtTime.get(sel.time) : q.snapshotByTag.get(sel.tag)) as
          | { snapshot_id: number }
          | undefined;
        if (!row) throw new Error('peer: no such snapshot');
        return row.snapshot_id;
      })(),
    timeRange: async () => {
      const r = q.timeRange.get() as { first: number; newest: number };
      return [r.first, r.newest];
    },
    close: async () => {
      db.close();
    },
  };
}
