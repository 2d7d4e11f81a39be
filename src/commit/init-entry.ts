// The first log entry of every catalog, as DuckLake's own initialisation makes it: snapshot 0, schema
// `main` (catalog id 0), schema version 0. It also fixes the catalog's identity and data path, so an index
// or a process pointed at the wrong store is detected instead of silently mixing two catalogs.
import { catalogId, fileId, type KvSeq, snapshotId } from '../../keys/ids.js';
import { DATA_PATH_OPTION, putOption } from '../../keys/options.js';
import { schemaEntity, schemaNameEntity } from '../../keys/schemas.js';
import { createSnapshot, type SnapshotRow } from '../../keys/snapshots.js';
import { type CatalogIdentity, putIdentity } from '../../keys/system.js';
import type { LogEntry } from '../log/log-entry.js';

export { DATA_PATH_OPTION };

export const KEYSPACE_LAYOUT = 2;

export const MAIN_SCHEMA = 'main';

export function initEntry(seq: KvSeq, identity: CatalogIdentity, dataPath: string): LogEntry {
  const s0 = snapshotId(0);
  const main = catalogId(0);
  const snapshot: SnapshotRow = { time: identity.createdAt, schemaVersion: 0, nextCatalogId: catalogId(1), nextFileId: fileId(0) };
  const changes = { changes: [`created_schema:${JSON.stringify(MAIN_SCHEMA)}`], author: null, message: null, extraInfo: null, maintenance: false };
  return {
    seq,
    kind: 'init',
    epoch: 0,
    txn: identity.uuid,
    prev: '',
    snapshots: [s0],
    mutations: [
      putIdentity(identity),
      putOption(DATA_PATH_OPTION, dataPath),
      schemaEntity(main).create(s0, { name: MAIN_SCHEMA, uuid: identity.uuid }),
      schemaNameEntity(MAIN_SCHEMA).create(s0, { schemaId: main }),
      ...createSnapshot(s0, snapshot, changes, true),
    ],
  };
}
