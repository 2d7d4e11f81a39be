// catalog.verify(): every invariant the catalog keeps (docs/DESIGN.md §6), checked against what is stored. The rules
// themselves are the family modules' (keys/census.ts runs them over one scan of the index); this module adds
// what needs the store: the log read whole (checksums, numbering, gaps, the chain of predecessors), the
// newest checkpoint read whole, the index compared key for key with one rebuilt from the store, and, on
// request, the files the catalog names.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Census, type CensusSlice, mergeSlices, type NamedDeleteFile } from '../../keys/census.js';
import { append } from '../../keys/mutation.js';
import { type KvSeq, kvSeq } from '../../keys/ids.js';
import { keyToString } from '../../keys/key-codec.js';
import { WHOLE_KEYSPACE, isIndexBookkeeping } from '../../keys/system.js';
import type { Violation } from '../../keys/violation.js';
import { isStrataError } from '../errors.js';
import { KvStore } from '../kv/kv-store.js';
import type { ReadView } from '../kv/read-view.js';
import type { CommitLog } from '../log/commit-log.js';
import type { ObjectStore } from '../store/object-store.js';
import { bodyMismatch, bytesMismatch, type RecordedFile } from '../store/recorded-bytes.js';
import { heapGrowth } from './heap-growth.js';
import { IndexSync } from './index-sync.js';
import { inParallel } from '../in-parallel.js';

export type { Violation };

export interface VerifyOptions {
  /**
   * Also check that every file a row names is in the store with its recorded size (and CRC-32), and that
   * every delete file's positions fit its data file (default false).
   */
  files?: boolean;
}

/** What reads the files the catalog names (the SQL layer's DataPlane): verify({ files }) asks it. */
export interface FileChecks {
  /** The delete files whose positions do not fit their data files, as violations. */
  deletePositionViolations(named: NamedDeleteFile[]): Promise<Violation[]>;
}

export interface VerifyReport {
  ok: boolean;
  violations: Violation[];
  /**
   * What was looked at; `censusScans` how many times the index was read whole for its invariants (a catalog of
   * more keys is checked a slice at a time, to bound memory); `icebergObjects` the Iceberg objects read (the
   * facade checks them: src/iceberg/object-names.ts).
   */
  checked: { logEntries: number; checkpoint: KvSeq | null; keys: number; censusScans: number; files: number; icebergObjects: number };
}

/** Differences between the index and the one rebuilt from the store, reported at most (then counted). */
const MAX_DIFFERENCES = 20;

/** Runs with V8's heap growth held (decision 0062): the census's slices are let go before the heap grows far past them. */
export const verifyCatalog = (...args: Parameters<typeof verifyHeld>): Promise<VerifyReport> => heapGrowth.held(() => verifyHeld(...args));

async function verifyHeld(
  sync: IndexSync,
  log: CommitLog,
  store: ObjectStore,
  dataPath: string,
  opts: Required<VerifyOptions>,
  checks: FileChecks,
): Promise<VerifyReport> {
  await sync.refresh();
  const violations: Violation[] = [];
  const checkpointViolations: Violation[] = [];
  const checkpoint = await checkNewestCheckpoint(log, checkpointViolations);
  // What the index was built from, to size the census by: the newest checkpoint if it reads whole, else the log alone.
  const base = checkpointViolations.length === 0 ? checkpoint : null;
  const { entries, whole, writes } = await checkLog(log, violations, base?.seq ?? kvSeq(0));
  append(violations, checkpointViolations);
  let keys = 0;
  let files = 0;
  let slices = 0;
  let named: Named | undefined;
  await sync.view(async (view) => {
    // A census holds facts for the keys of its slice: a catalog of more keys is checked in more scans, each
    // slice's facts let go before the next, and all before the rebuild starts (the rebuild is the other large
    // part of verify's memory). The index holds at most the newest checkpoint's keys and those the entries
    // after it write (puts and deletes both counted: an estimate from above).
    slices = Math.max(1, Math.ceil(((base?.keys ?? 0) + writes) / KEYS_PER_SLICE));
    const found: Violation[][] = [];
    for (let slice = 0; slice < slices; slice++) {
      const census = await takeCensus(view, { slice, of: slices }, opts.files);
      if (slice === 0) keys = census.keys;
      found.push(census.violations);
      if (census.named !== undefined) {
        named ??= { files: new Map(), deleteFiles: [] };
        for (const [p, records] of census.named.files) named.files.set(p, records);
        append(named.deleteFiles, census.named.deleteFiles);
      }
    }
    append(violations, mergeSlices(found));
    // Rebuilding needs a log that can be read to its end.
    if (whole) append(violations, await compareWithRebuild(log, view));
  });
  if (named !== undefined) {
    files = await checkFiles(store, dataPath, named.files, violations);
    append(violations, await checks.deletePositionViolations(named.deleteFiles));
  }
  return { ok: violations.length === 0, violations, checked: { logEntries: entries, checkpoint: checkpoint?.seq ?? null, keys, censusScans: slices, files, icebergObjects: 0 } };
}

/**
 * Keys of the index a census slice is taken over: ~265 bytes of facts a key, and as much again while its rules
 * run, so a slice holds ~100 MiB, however many tables the catalog has (a table's files are one slice's: one
 * table of millions of files is as large a slice by itself).
 */
const KEYS_PER_SLICE = 200_000;

type Named = { files: Map<string, Omit<RecordedFile, 'key'>[]>; deleteFiles: NamedDeleteFile[] };

/** One slice of the census, over one scan of the index (paths fall in one slice each, so slices name files apart). */
async function takeCensus(view: ReadView, slice: CensusSlice, files: boolean): Promise<{ keys: number; violations: Violation[]; named: Named | undefined }> {
  const c = new Census(slice);
  let keys = 0;
  for await (const batch of view.scanBatches(WHOLE_KEYSPACE)) {
    for (const [key, value] of batch) c.visit(key, value);
    keys += batch.length;
  }
  return { keys, violations: c.finish(), named: files ? { files: c.namedFiles(), deleteFiles: c.deleteFilesOfData() } : undefined };
}

/**
 * Reads the log from entry 1 to its end: every entry's checksum and number (the log's read does both),
 * no gap, and each entry following the one before it. Stops at the first damage: what follows it cannot
 * be trusted either. Counts the keys the entries after `after` write.
 */
async function checkLog(log: CommitLog, violations: Violation[], after: KvSeq): Promise<{ entries: number; whole: boolean; writes: number }> {
  let entries = 0;
  let writes = 0;
  let prevTxn = '';
  try {
    for await (const entry of log.readAfter(kvSeq(0), { thorough: true })) {
      entries++;
      if (entry.prev !== '' && prevTxn !== '' && entry.prev !== prevTxn) {
        violations.push({
          invariant: 'log-entries-follow-each-other',
          object: `log entry ${entry.seq}`,
          message: `entry ${entry.seq} names entry ${entry.seq - 1} as txn ${entry.prev}, but that entry is txn ${prevTxn}`,
        });
      }
      prevTxn = entry.txn;
      if (entry.seq > after) writes += entry.mutations.length;
    }
    return { entries, whole: true, writes };
  } catch (e) {
    if (!isStrataError(e, 'CORRUPT')) throw e;
    violations.push({ invariant: 'log-entries-are-whole', object: `log entry ${entries + 1}`, message: e.message });
    return { entries, whole: false, writes };
  }
}

/**
 * Reads the newest complete checkpoint whole, and each it is read over (checksums, names, the count each
 * manifest gives); its entry and the keys its manifests count.
 */
async function checkNewestCheckpoint(log: CommitLog, violations: Violation[]): Promise<{ seq: KvSeq; keys: number } | null> {
  let found: { seq: KvSeq; keys: number } | null = null;
  let reading: KvSeq | null = null;
  try {
    for await (const newest of log.checkpoints.newestFirst(async () => true)) {
      found = { seq: newest.seq, keys: 0 };
      reading = newest.seq;
      for (const m of await log.checkpoints.stack(newest)) {
        reading = m.seq;
        found.keys += m.keys;
        let keys = 0;
        for await (const chunk of log.checkpoints.chunks(m)) keys += chunk.length;
        if (keys !== m.keys) {
          violations.push({ invariant: 'checkpoints-are-whole', object: `checkpoint ${m.seq}`, message: `its manifest counts ${m.keys} keys; its chunks hold ${keys}` });
        }
      }
      break;
    }
  } catch (e) {
    if (!isStrataError(e, 'CORRUPT')) throw e;
    violations.push({ invariant: 'checkpoints-are-whole', object: reading === null ? 'the newest checkpoint' : `checkpoint ${reading}`, message: e.message });
  }
  return found;
}

/**
 * The index equals the log: an index rebuilt from the store (newest checkpoint, then the log) in a scratch
 * directory holds exactly the keys and values this one does, at the same entry.
 */
async function compareWithRebuild(log: CommitLog, view: ReadView): Promise<Violation[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'strata-verify-'));
  const scratch = await KvStore.open(path.join(dir, 'index'));
  try {
    const rebuilt = new IndexSync(scratch, log);
    await rebuilt.bootstrap();
    await rebuilt.catchUp({ thorough: true });
    if (scratch.latestApplied < view.seq) {
      return [{ invariant: 'index-equals-log', message: `the index has applied entry ${view.seq}, but the store's log ends at ${scratch.latestApplied}` }];
    }
    return await rebuilt.view((other) => differences(view, other));
  } finally {
    await scratch.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function differences(index: ReadView, rebuilt: ReadView): Promise<Violation[]> {
  const out: Violation[] = [];
  let more = 0;
  const report = (key: Uint8Array, message: string) => {
    if (out.length < MAX_DIFFERENCES) out.push({ invariant: 'index-equals-log', key: keyToString(key), message });
    else more++;
  };
  const a = entries(index);
  const b = entries(rebuilt);
  let x = await a.next();
  let y = await b.next();
  while (!x.done || !y.done) {
    const order = x.done ? 1 : y.done ? -1 : Buffer.compare(x.value[0], y.value[0]);
    if (order < 0) {
      report(x.value![0], 'the index holds this key; the store does not');
      x = await a.next();
    } else if (order > 0) {
      report(y.value![0], 'the store holds this key; the index does not');
      y = await b.next();
    } else {
      if (Buffer.compare(x.value![1], y.value![1]) !== 0) report(x.value![0], 'the index holds another value here than the store');
      x = await a.next();
      y = await b.next();
    }
  }
  if (more > 0) out.push({ invariant: 'index-equals-log', message: `and ${more} more differences` });
  return out;
}

async function* entries(view: ReadView): AsyncGenerator<[Uint8Array, Uint8Array]> {
  for await (const batch of view.scanBatches(WHOLE_KEYSPACE)) for (const e of batch) if (!isIndexBookkeeping(e[0])) yield e;
}

/**
 * Every object path a file row names is in the store with the size the row records, and with its CRC-32 where
 * the row has one (those objects are read whole, a few at a time).
 */
async function checkFiles(store: ObjectStore, dataPath: string, named: ReadonlyMap<string, Omit<RecordedFile, 'key'>[]>, violations: Violation[]): Promise<number> {
  const found = new Map<string, number>();
  for await (const o of store.list(dataPath)) found.set(o.key.slice(dataPath.length), o.size);
  // The objects read whole: those a row records a CRC-32 for.
  const reads: { object: string; records: Omit<RecordedFile, 'key'>[] }[] = [];
  for (const [p, records] of named) {
    const object = `${dataPath}${p}`;
    const actual = found.get(p);
    if (actual === undefined) {
      violations.push({ invariant: 'named-files-exist', object, message: 'a retained row names this file, and the store has no object there' });
      continue;
    }
    for (const r of records) {
      const wrong = bytesMismatch({ key: object, ...r }, actual, null);
      if (wrong !== undefined) violations.push({ invariant: 'named-files-exist', object, message: wrong });
    }
    if (records.some((r) => r.contentCrc32 !== null)) reads.push({ object, records });
  }
  await inParallel(reads, FILE_READS_AT_ONCE, async ({ object, records }) => {
    const body = await store.get(object);
    if (body === undefined) {
      violations.push({ invariant: 'named-files-exist', object, message: 'the object was listed, and is gone' });
      return;
    }
    for (const r of records) {
      const wrong = r.fileSizeBytes === body.length ? bodyMismatch({ key: object, ...r }, body) : undefined;
      if (wrong !== undefined) violations.push({ invariant: 'named-files-intact', object, message: wrong });
    }
  });
  return named.size;
}

/** Files verify reads at once: enough to keep S3 busy, few enough to bound memory by a few files. */
const FILE_READS_AT_ONCE = 4;
