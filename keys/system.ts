// System values: process-independent bookkeeping of the log and the catalog, under the System space, keyed
// by a SystemKey. Singletons: overwritten in place, no history. (Retain-from is one too; retention.ts owns it.)
import { StrataError } from '../src/errors.js';
import { type KvSeq, kvSeq, type SnapshotId, snapshotId } from './ids.js';
import { encodeKey, type Key, type KeyRange } from './key-codec.js';
import { type Mutation, putRow } from './mutation.js';
import { Space } from './spaces.js';
import { decodeValue } from './value-codec.js';

export enum SystemKey {
  /** The kv sequence of the last log entry applied to this index. */
  AppliedSeq = 1,
  /** The catalog's identity, copied from the first log entry; an index never serves another store. */
  CatalogIdentity = 2,
  /** The newest snapshot id, written in the batch that creates it: "latest" is one point read of a view. */
  HeadSnapshot = 3,
  /** The current exclusive writer's epoch: entries written under an older one are not applied. */
  WriterEpoch = 4,
  /** Retain-from: snapshots below it (untagged) are out of retention. */
  RetainFrom = 5,
  /** The `txn` of the last log entry applied to this index: tells it from another entry of that number. */
  AppliedTxn = 6,
  /** The first catalog and file ids no writer has claimed (id blocks: docs/decisions/0009). */
  IdHorizon = 7,
}

export const systemKey = (k: SystemKey): Key => encodeKey(Space.System, [k]);

// ---- the index's own bookkeeping (not catalog state: checkpoints leave these out)

export const APPLIED_SEQ_KEY = systemKey(SystemKey.AppliedSeq);
export const APPLIED_TXN_KEY = systemKey(SystemKey.AppliedTxn);

/** Every key an index holds, bookkeeping included. */
export const WHOLE_KEYSPACE: KeyRange = { gte: Uint8Array.of(0), lt: Uint8Array.of(0xff) };

export function isIndexBookkeeping(key: Key): boolean {
  return Buffer.compare(key, APPLIED_SEQ_KEY) === 0 || Buffer.compare(key, APPLIED_TXN_KEY) === 0;
}

/** The applied sequence is a bare u64, not a framed value: it is read on every open. */
export function encodeSeq(seq: KvSeq): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(seq));
  return b;
}

export function decodeSeq(bytes: Uint8Array | undefined): KvSeq {
  if (bytes === undefined) return kvSeq(0);
  if (bytes.length !== 8) {
    throw new StrataError('CORRUPT', `the index's applied sequence is ${bytes.length} bytes, expected 8; rebuild the index from the store`);
  }
  return kvSeq(Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0)));
}

// UTF-8, Buffer.from's default.
export const encodeTxn = (txn: string): Uint8Array => Buffer.from(txn);
export const decodeTxn = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? new Uint8Array(0)).toString('utf8');

// ---- the catalog's identity

export interface CatalogIdentity {
  uuid: string;
  createdAt: number;
  /**
   * The keyspace layout the catalog was created with. 2: data file listings come from manifests (absent
   * in layout 1, whose catalogs would list no files).
   */
  layout?: number;
}

export const IDENTITY_KEY = systemKey(SystemKey.CatalogIdentity);

export const putIdentity = (identity: CatalogIdentity): Mutation => putRow(IDENTITY_KEY, identity);

export const decodeIdentity = (bytes: Uint8Array): CatalogIdentity => decodeValue<CatalogIdentity>(IDENTITY_KEY, bytes);

/** The identity an entry's mutations record (the init entry's), if any. */
export function identityIn(mutations: readonly Mutation[]): CatalogIdentity | undefined {
  const m = mutations.find((x) => x.type === 'put' && Buffer.compare(x.key, IDENTITY_KEY) === 0);
  return m?.type === 'put' ? decodeIdentity(m.value) : undefined;
}

// ---- the newest snapshot

export const HEAD_SNAPSHOT_KEY = systemKey(SystemKey.HeadSnapshot);

export interface HeadSnapshotRow {
  id: number;
}

export const putHeadSnapshot = (id: SnapshotId): Mutation => putRow(HEAD_SNAPSHOT_KEY, { id } satisfies HeadSnapshotRow);

export const headSnapshotId = (row: HeadSnapshotRow | undefined): SnapshotId | undefined => (row === undefined ? undefined : snapshotId(row.id));

// ---- fencing

export interface WriterEpochRow {
  epoch: number;
  holder: string;
  since: number;
}

export const WRITER_EPOCH_KEY = systemKey(SystemKey.WriterEpoch);

export const NO_WRITER_EPOCH: WriterEpochRow = { epoch: 0, holder: '', since: 0 };

export const putWriterEpoch = (row: WriterEpochRow): Mutation => putRow(WRITER_EPOCH_KEY, row);

/** Whether an entry's mutations write (or delete) the writer epoch: the only entries that change it. */
export const touchesWriterEpoch = (mutations: readonly Mutation[]): boolean =>
  mutations.some((m) => Buffer.compare(m.key, WRITER_EPOCH_KEY) === 0);

export const decodeWriterEpoch = (bytes: Uint8Array | undefined): WriterEpochRow =>
  bytes === undefined ? NO_WRITER_EPOCH : decodeValue<WriterEpochRow>(WRITER_EPOCH_KEY, bytes);

// ---- id blocks

/** The first ids of each kind that no writer has claimed: a claim takes the block above and moves this. */
export interface IdHorizonRow {
  catalog: number;
  file: number;
}

export const ID_HORIZON_KEY = systemKey(SystemKey.IdHorizon);

export const putIdHorizon = (row: IdHorizonRow): Mutation => putRow(ID_HORIZON_KEY, row);

/** Whether an entry's mutations only claim ids (they change nothing a transaction reads). */
export const isIdClaim = (mutations: readonly Mutation[]): boolean =>
  mutations.length > 0 && mutations.every((m) => Buffer.compare(m.key, ID_HORIZON_KEY) === 0);

export const decodeIdHorizon = (bytes: Uint8Array | undefined): IdHorizonRow | undefined =>
  bytes === undefined ? undefined : decodeValue<IdHorizonRow>(ID_HORIZON_KEY, bytes);
