// The first log entry of every catalog, as DuckLake's own initialisation makes it: snapshot 0, schema
// `main` (catalog id 0), schema version 0. It also fixes the catalog's identity and data path, so an index
// or a process pointed at the wrong store is detected instead of silently mixing two catalogs.
import { catalogId, fileId, type KvSeq, snapshotId } from '../../keys/ids.js';
import { encodeKey } from '../../keys/key-codec.js';
import type { SchemaRow, SnapshotChangesRow, SnapshotRow } from '../../keys/rows.js';
import { SystemKey, Tag } from '../../keys/tags.js';
import { decodeValue, encodeValue } from '../../keys/value-codec.js';
import { type Mutation, systemKey } from '../kv/kv-store.js';
import type { LogEntry } from '../log/log-entry.js';

export interface CatalogIdentity {
  uuid: string;
  createdAt: number;
  /**
   * The keyspace layout the catalog was created with. 2: data file listings come from manifests (absent
   * in layout 1, whose catalogs would list no files).
   */
  layout?: number;
}

export const KEYSPACE_LAYOUT = 2;

export const DATA_PATH_OPTION = 'data_path';
export const MAIN_SCHEMA = 'main';

export function initEntry(seq: KvSeq, identity: CatalogIdentity, dataPath: string): LogEntry {
  const s0 = snapshotId(0);
  const main = catalogId(0);
  const put = (key: Uint8Array, value: unknown): Mutation => ({ type: 'put', key, value: encodeValue(value) });
  const snapshot: SnapshotRow = { time: identity.createdAt, schemaVersion: 0, nextCatalogId: catalogId(1), nextFileId: fileId(0) };
  const changes: SnapshotChangesRow = {
    changes: [`created_schema:${JSON.stringify(MAIN_SCHEMA)}`],
    author: null,
    message: null,
    extraInfo: null,
    maintenance: false,
  };
  const schema: SchemaRow = { name: MAIN_SCHEMA, uuid: identity.uuid, end: null };
  return {
    seq,
    kind: 'init',
    epoch: 0,
    txn: identity.uuid,
    snapshots: [s0],
    mutations: [
      put(systemKey(SystemKey.CatalogIdentity), identity),
      put(systemKey(SystemKey.HeadSnapshot), { id: s0 }),
      put(encodeKey(Tag.Metadata, [DATA_PATH_OPTION]), { value: dataPath }),
      put(encodeKey(Tag.Schema, [main], s0), schema),
      put(encodeKey(Tag.SchemaNameIndex, [MAIN_SCHEMA], s0), { schemaId: main, end: null }),
      put(encodeKey(Tag.Snapshot, [], s0), snapshot),
      put(encodeKey(Tag.SnapshotChanges, [], s0), changes),
      put(encodeKey(Tag.SnapshotTimeIndex, [snapshot.time], s0), {}),
      put(encodeKey(Tag.SchemaVersions, [], s0), { schemaVersion: 0 }),
    ],
  };
}

/** The identity recorded by an init entry. */
export function identityOf(entry: LogEntry): CatalogIdentity | undefined {
  const key = systemKey(SystemKey.CatalogIdentity);
  const m = entry.mutations.find((x) => x.type === 'put' && Buffer.compare(x.key, key) === 0);
  return m?.type === 'put' ? decodeIdentity(m.value) : undefined;
}

export function decodeIdentity(bytes: Uint8Array): CatalogIdentity {
  return decodeValue<CatalogIdentity>(systemKey(SystemKey.CatalogIdentity), bytes);
}
