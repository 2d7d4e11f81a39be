// The design's own work under a commit, and nothing more, timed in the same run as the commits: for each
// transaction a look for newer log entries, a frozen view, the table resolved by name at the newest snapshot
// and its stats read, and the rows the peer writes for it (each data file, the snapshot, its changes, its
// time, the newest snapshot, the table's stats: what DuckLake's tables and the peer's indexes hold), framed as
// every value is; then one log entry appended to the segmented log and applied to the index — a group's
// transactions sharing one, as group commit's do — all through Strata's own modules. Left out is all of the
// catalog's logic: argument checks, a transaction's pending state and recorded operations, the general plan,
// conflict rules, the planning of a group's later members on the earlier ones, and the indexes Strata keeps
// beside DuckLake's tables (a commit's manifest, file → table, paths). What lies between this and the peer's
// whole commit is what the design itself costs (docs/DESIGN.md §1–§3: a log entry per commit, an index beside it, a
// look at the log and a frozen view per transaction); between this and Strata's commit, the catalog's logic.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { dataFileEntity } from '../keys/data-files.js';
import { type FileId, fileId, kvSeq, type SnapshotId, snapshotId } from '../keys/ids.js';
import type { Mutation } from '../keys/mutation.js';
import { createSnapshot, type SnapshotRow } from '../keys/snapshots.js';
import { changedTableStats, EMPTY_TABLE_STATS, NO_DELETES, putTableStats } from '../keys/stats.js';
import { openCatalog, type Opened } from '../src/commit/open.js';
import { Catalog } from '../src/index.js';
import * as q from '../src/read/catalog-queries.js';
import { COLUMNS } from './drivers/driver.js';
import { fmt, measure, median, stats } from './harness.js';

const TABLES = 1000;

export interface FloorShape {
  /** Data files per commit. */
  files: number;
  /** Commits per log entry: 1, or a group's as 8 callers make them. */
  group: number;
  durable: boolean;
}

/** One commit's rows: `files` data files into table `t<table>`, as snapshot `at` over `head`. */
function commitRows(parts: Opened, table: number, files: number, next: () => FileId, at: SnapshotId, head: SnapshotRow) {
  return parts.sync.view(async (view) => {
    const base = snapshotId(at - 1);
    const schemaId = (await q.schemaIdByName(view, base, 'main'))!;
    const tableId = (await q.relationByName(view, base, schemaId, `t${table}`))!.id;
    const stats = (await q.tableStats(view, tableId)) ?? EMPTY_TABLE_STATS;
    const out: Mutation[] = [];
    let rowIdStart = stats.nextRowId;
    let id = head.nextFileId;
    for (let f = 0; f < files; f++, rowIdStart += 1000) {
      id = next();
      out.push(dataFileEntity(tableId, id).create(at, { path: `data/floor/f${id}.parquet`, format: 'parquet', recordCount: 1000, fileSizeBytes: 1 << 20, footerSize: null, rowIdStart }));
    }
    out.push(putTableStats(tableId, changedTableStats(stats, { records: 1000 * files, bytes: (1 << 20) * files, files, ended: 0, deletes: NO_DELETES }, rowIdStart)));
    const row: SnapshotRow = { ...head, time: Math.max(parts.clock(), head.time), nextFileId: fileId(id + 1) };
    const changes = { changes: [`inserted_into_table:${tableId}`], author: null, message: null, extraInfo: null, maintenance: false };
    for (const m of createSnapshot(at, row, changes, false)) out.push(m);
    return { mutations: out, row };
  });
}

/**
 * One log entry of `shape.group` commits, each into its own table (`first` picks them). A group's
 * transactions share one look at the log, as the members of one of Strata's groups do.
 */
async function floorEntry(parts: Opened, shape: FloorShape, first: number, next: () => FileId): Promise<void> {
  const { sync } = parts;
  await sync.refresh();
  let head = await sync.view((view) => q.headSnapshot(view));
  const mutations: Mutation[] = [];
  const snapshots: SnapshotId[] = [];
  for (let j = 0; j < shape.group; j++) {
    const at = snapshotId(head.begin + 1);
    // 919·j mod 1000 differs for every j below 8: a group's commits go to different tables, as the suite's mostly do.
    const rows = await commitRows(parts, (first + 919 * j) % TABLES, shape.files, next, at, head.row);
    for (const m of rows.mutations) mutations.push(m);
    snapshots.push(at);
    head = { begin: at, row: rows.row };
  }
  await sync.exclusive(async () => {
    const entry = { seq: kvSeq(sync.kv.latestApplied + 1), epoch: 0, txn: randomUUID(), prev: sync.kv.latestAppliedTxn, kind: 'commit' as const, snapshots, mutations };
    if (!(await parts.log.appendOwn(entry))) throw new Error('the commit floor is its catalog\'s only writer, yet lost the race for an entry');
    await sync.apply(entry);
  });
}

/** `n` entries into a catalog of TABLES tables, after as many untimed ones (the code warmed as the suite's warm case is). */
async function timeFloor(dir: string, n: number, shape: FloorShape) {
  const durability = shape.durable ? 'durable' : 'relaxed';
  const setup = await Catalog.open({ dir, durability, checkpointEvery: 0 });
  for (let from = 0; from < TABLES; from += 100) {
    await setup.transaction(async (tx) => {
      for (let t = from; t < from + 100; t++) await tx.createTable('main', `t${t}`, COLUMNS);
    });
  }
  await setup.close();
  const parts = await openCatalog({ dir, durability, checkpointEvery: 0 });
  try {
    // Ids far above what the tables' creation took: this loop is the catalog's only writer.
    let id = 1_000_000;
    const next = () => fileId(id++);
    const first = (i: number) => (i * 7919) % TABLES;
    for (let i = 0; i < n; i++) await floorEntry(parts, shape, first(i), next);
    return stats(await measure(n, shape.group * shape.files, (i) => floorEntry(parts, shape, first(i), next)));
  } finally {
    await parts.sync.kv.close();
    parts.closeStore();
  }
}

/**
 * One sentence for the report: the median run of `runs`, `n` entries each (of `shape.group` commits). What the
 * floor holds and leaves out is said once, in BENCHMARKS.md, not under every table.
 */
export async function commitFloor(n: number, runs: number, shape: FloorShape, unit: 'commits/s' | 'files/s'): Promise<string> {
  const timed = [];
  for (let run = 0; run < runs; run++) {
    const dir = await mkdtemp(path.join(tmpdir(), 'strata-bench-floor-'));
    try {
      timed.push(await timeFloor(dir, n, shape));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const s = median(timed);
  const rate = unit === 'files/s' ? s.perSec : s.perSec / shape.files;
  const perCommit = 1e6 / (s.perSec / shape.files);
  return (
    `The design's own work for the same commits, in this run (bench/commit-floor.ts: ${n} log entries of ${shape.group} commit${shape.group > 1 ? 's' : ''} ` +
    `after as many untimed, one entry ${shape.durable ? 'synced ' : ''}per ${shape.group > 1 ? 'group' : 'commit'}, median of ${runs} runs): ${fmt(rate)} ${unit}, ${fmt(perCommit)} µs per commit.`
  );
}
