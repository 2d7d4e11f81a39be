// The raw limit: the keys and values Strata writes, put and read through classic-level directly. No
// validation, no planning, no log, no read-view bookkeeping: only what any catalog on this keyspace must do
// (write the rows of a commit in one batch; seek the newest version at or below S; scan a prefix; decode).
import * as path from 'node:path';
import { Level } from 'level';
import { encodeKey, type Field, keyPrefix, prefixEnd } from '../../keys/key-codec.js';
import { fileId } from '../../keys/ids.js';
import { type ManifestFile, manifestFile } from '../../keys/data-files.js';
import { Space } from '../../keys/spaces.js';
import { decodeValue, encodeValue } from '../../keys/value-codec.js';
import { isVisible } from '../../keys/visibility.js';
import { COLUMNS, type Driver, type DriverOptions, type FileSpec } from './driver.js';

type Db = Level<Uint8Array, Uint8Array>;
type Put = { type: 'put'; key: Uint8Array; value: Uint8Array };
const put = (space: Space, fields: Field[], begin: number | undefined, value: unknown): Put => ({
  type: 'put',
  key: encodeKey(space, fields, begin),
  value: encodeValue(value),
});

async function last(db: Db, snapshot: ReturnType<Db['snapshot']>, space: Space, fields: Field[], s: number) {
  const it = db.iterator({ gte: keyPrefix(space, fields), lte: encodeKey(space, fields, s), reverse: true, limit: 1, snapshot });
  try {
    return await it.next();
  } finally {
    await it.close();
  }
}

async function* scan(db: Db, snapshot: ReturnType<Db['snapshot']>, prefix: Uint8Array) {
  const it = db.iterator({ gte: prefix, lt: prefixEnd(prefix), snapshot });
  try {
    for (let batch = await it.nextv(256); batch.length > 0; batch = await it.nextv(256)) yield* batch;
  } finally {
    await it.close();
  }
}

const beginOf = (key: Uint8Array) => Number(Buffer.from(key).readBigUInt64BE(key.length - 8));

export async function openRaw(opts: DriverOptions): Promise<Driver> {
  const db: Db = new Level<Uint8Array, Uint8Array>(path.join(opts.dir, 'raw'), { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  // The only state kept in memory: counters and where each live table's current rows are.
  let snapshotId = 0;
  let nextId = 1;
  let nextFileId = 0;
  const live = new Map<string, { id: number; begin: number; nextRowId: number }>();
  // A chained batch: the array form re-validates a copy of every operation (15-21 µs each, measured),
  // which is not LevelDB's cost and would flatter every ratio against this side.
  const write = (s: number, puts: Put[]) => {
    const time = Date.now();
    const batch = db.batch();
    for (const p of [...puts, put(Space.Snapshot, [], s, { time }), put(Space.SnapshotChanges, [], s, { changes: [] }), put(Space.SnapshotTimeIndex, [time], s, {})]) {
      batch.put(p.key, p.value);
    }
    return batch.write({ sync: opts.durable });
  };

  const resolveIn = async (snap: ReturnType<Db['snapshot']>, s: number, table: string) => {
    const schema = await last(db, snap, Space.SchemaNameIndex, ['main'], s);
    const schemaId = (decodeValue<{ schemaId: number; end: number | null }>(schema![0], schema![1])).schemaId;
    const rel = await last(db, snap, Space.RelationNameIndex, [schemaId, table], s);
    const { id } = decodeValue<{ id: number }>(rel![0], rel![1]);
    const row = await last(db, snap, Space.Table, [id], s);
    decodeValue(row![0], row![1]);
    let columns = 0;
    for await (const [k, v] of scan(db, snap, keyPrefix(Space.Column, [id]))) {
      if (isVisible(beginOf(k), decodeValue<{ end: number | null }>(k, v).end, s)) columns++;
    }
    return { id, columns };
  };
  // The layout Strata lists from: the table's manifests up to S, less the files whose end is at or before S
  // (a file's end index entry, merged by file id; this side never removes files, so that scan finds none).
  const listIn = async (snap: ReturnType<Db['snapshot']>, s: number, id: number) => {
    const ended = new Set<number>();
    for await (const [k, v] of scan(db, snap, keyPrefix(Space.DataFileEndIndex, [id]))) {
      if (decodeValue<{ end: number }>(k, v).end <= s) ended.add(Number(Buffer.from(k).readBigUInt64BE(9)));
    }
    let n = 0;
    const it = db.iterator({ gte: keyPrefix(Space.DataFileManifest, [id]), lte: encodeKey(Space.DataFileManifest, [id], s), snapshot: snap });
    try {
      for (let batch = await it.nextv(256); batch.length > 0; batch = await it.nextv(256)) {
        for (const [k, v] of batch) for (const [id] of decodeValue<{ files: ManifestFile[] }>(k, v).files) if (!ended.has(id)) n++;
      }
    } finally {
      await it.close();
    }
    return n;
  };

  await db.batch([
    put(Space.Schema, [0], 0, { name: 'main', end: null }),
    put(Space.SchemaNameIndex, ['main'], 0, { schemaId: 0, end: null }),
    put(Space.Snapshot, [], 0, { time: Date.now() }),
    put(Space.SnapshotTimeIndex, [Date.now()], 0, {}),
  ]);
  let reading: ReturnType<Db['snapshot']> | undefined;
  const readSnapshot = () => (reading ??= db.snapshot());

  return {
    side: 'raw',
    durability: opts.durable ? 'LevelDB batch, sync: true (WAL fsync)' : 'LevelDB batch, sync: false',
    createTables: async (names, columns = COLUMNS) => {
      const s = ++snapshotId;
      const puts: Put[] = [];
      for (const name of names) {
        const id = nextId++;
        live.set(name, { id, begin: s, nextRowId: 0 });
        puts.push(put(Space.Table, [id], s, { schemaId: 0, name, end: null }));
        puts.push(put(Space.RelationNameIndex, [0, name], s, { kind: 'table', id, end: null }));
        columns.forEach((c, i) => puts.push(put(Space.Column, [id, i + 1], s, { name: c.name, type: c.type, order: i + 1, end: null })));
        puts.push(put(Space.TableStats, [id], undefined, { recordCount: 0, nextRowId: 0 }));
      }
      await write(s, puts);
      return s;
    },
    renameTables: async (pairs) => {
      const s = ++snapshotId;
      const puts: Put[] = [];
      for (const [from, to] of pairs) {
        const t = live.get(from)!;
        puts.push(put(Space.Table, [t.id], t.begin, { schemaId: 0, name: from, end: s }));
        puts.push(put(Space.RelationNameIndex, [0, from], t.begin, { kind: 'table', id: t.id, end: s }));
        puts.push(put(Space.Table, [t.id], s, { schemaId: 0, name: to, end: null }));
        puts.push(put(Space.RelationNameIndex, [0, to], s, { kind: 'table', id: t.id, end: null }));
        live.delete(from);
        live.set(to, { ...t, begin: s });
      }
      await write(s, puts);
      return s;
    },
    addFiles: async (table, files: FileSpec[]) => {
      const s = ++snapshotId;
      const t = live.get(table)!;
      const puts: Put[] = [];
      const manifest: ManifestFile[] = [];
      for (const f of files) {
        const id = fileId(nextFileId++);
        const row = { path: f.path, format: 'parquet', recordCount: f.rows, fileSizeBytes: f.bytes, footerSize: null, rowIdStart: t.nextRowId };
        puts.push(put(Space.DataFile, [t.id, id], s, { ...row, end: null }));
        puts.push(put(Space.FilePathRef, [f.path, id], undefined, {}));
        manifest.push(manifestFile(id, row));
        t.nextRowId += f.rows;
      }
      puts.push(put(Space.DataFileManifest, [t.id], s, { files: manifest }));
      // One commit's ids are consecutive here: one run gives them all to the table (decision 0068).
      if (manifest.length > 0) puts.push(put(Space.FileIdRange, [manifest[0]![0]], undefined, { tableId: t.id, lastId: manifest.at(-1)![0], begin: s }));
      puts.push(put(Space.TableStats, [t.id], undefined, { recordCount: t.nextRowId, nextRowId: t.nextRowId }));
      await write(s, puts);
      return s;
    },
    resolve: async (s, table) => (await resolveIn(readSnapshot(), s, table)).columns,
    resolveOnce: async (s, table) => {
      const snap = db.snapshot();
      try {
        return (await resolveIn(snap, s, table)).columns;
      } finally {
        await snap.close();
      }
    },
    listFiles: async (s, table) => listIn(readSnapshot(), s, (await resolveIn(readSnapshot(), s, table)).id),
    plan: async (s, table) => {
      const snap = db.snapshot();
      try {
        return await listIn(snap, s, (await resolveIn(snap, s, table)).id);
      } finally {
        await snap.close();
      }
    },
    createTag: async (name, snapshot) => {
      await db.put(encodeKey(Space.SnapshotTag, [name]), encodeValue({ snapshot, createdAt: Date.now() }));
    },
    // Under a fresh LevelDB snapshot, as a reader that goes on to query at that snapshot would.
    snapshotBy: async (sel) => {
      const snap = db.snapshot();
      try {
        if ('time' in sel) {
          const it = db.iterator({
            gte: keyPrefix(Space.SnapshotTimeIndex),
            lte: encodeKey(Space.SnapshotTimeIndex, [sel.time], Number.MAX_SAFE_INTEGER),
            reverse: true,
            limit: 1,
            snapshot: snap,
          });
          const [key] = (await it.next())!;
          await it.close();
          return beginOf(key);
        }
        const key = 'id' in sel ? encodeKey(Space.Snapshot, [], sel.id) : encodeKey(Space.SnapshotTag, [sel.tag]);
        const bytes = await db.get(key, { snapshot: snap });
        if (bytes === undefined) throw new Error('raw: no such snapshot');
        return 'id' in sel ? sel.id : decodeValue<{ snapshot: number }>(key, bytes).snapshot;
      } finally {
        await snap.close();
      }
    },
    timeRange: async () => {
      const snap = readSnapshot();
      const prefix = keyPrefix(Space.SnapshotTimeIndex);
      const end = async (reverse: boolean) => {
        const it = db.iterator({ gte: prefix, lt: prefixEnd(prefix), reverse, limit: 1, snapshot: snap });
        const [key] = (await it.next())!;
        await it.close();
        return Number(Buffer.from(key).readBigUInt64BE(1));
      };
      return [await end(false), await end(true)];
    },
    close: async () => {
      await reading?.close();
      await db.close();
    },
  };
}
