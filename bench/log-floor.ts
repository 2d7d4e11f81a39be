// The commit log alone under a one-file commit: the segmented log's own append (its lock, its check of the
// tail, its record, its announcement of the new head) with no catalog above it, timed in the same run as the
// commits, beside the bare pwrite (and fdatasync) it ends in. What lies between the two is what sharing one
// local store between processes costs per append; what lies between the append and a whole commit is the
// catalog's.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { kvSeq } from '../keys/ids.js';
import type { LogEntry } from '../src/log/log-entry.js';
import { encodeRecord } from '../src/log/segment-file.js';
import { SegmentLog } from '../src/log/segment-log.js';
import { DirectoryStore } from '../src/store/directory-store.js';
import { fmt, measure, median, stats } from './harness.js';
import { timeRecordWrites } from './sync-floor.js';

/** Mutations of about the bytes a one-file commit's entry carries (~600 with its frame and header). */
const entry = (seq: number): LogEntry => ({
  seq: kvSeq(seq),
  kind: 'commit',
  epoch: 0,
  snapshots: [],
  txn: `txn-${seq}`,
  prev: seq === 1 ? '' : `txn-${seq - 1}`,
  mutations: Array.from({ length: 6 }, (_, i) => ({ type: 'put' as const, key: Buffer.from(`key ${seq} ${i}`.padEnd(40)), value: new Uint8Array(60).fill(i) })),
});

async function timeAppends(dir: string, n: number, durable: boolean) {
  const log = new SegmentLog(new DirectoryStore(dir), dir, { sync: durable });
  try {
    // Entry 1 has a segment of its own and entry 2 starts the next: the timed appends go to one tail.
    for (const seq of [1, 2]) await log.append(entry(seq));
    return stats(await measure(n, 1, (i) => log.append(entry(i + 3))));
  } finally {
    log.close();
  }
}

/** One sentence for the report: the median run of `runs`, `n` appends each. */
export async function logFloor(n: number, runs: number, durable: boolean): Promise<string> {
  const appends = [];
  const writes = [];
  const recordBytes = encodeRecord(entry(3), Date.now()).length;
  for (let run = 0; run < runs; run++) {
    const dir = await mkdtemp(path.join(tmpdir(), 'strata-bench-log-'));
    try {
      appends.push(await timeAppends(dir, n, durable));
      writes.push(await timeRecordWrites(path.join(dir, 'plain'), n, { bytes: recordBytes, sync: durable, prewritten: true }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const [a, w] = [median(appends), median(writes)];
  return (
    `The segmented log alone, in this run (${n} appends of a ${recordBytes}-byte record, no catalog, median of ${runs} runs): ` +
    `SegmentLog.append${durable ? ' (durable)' : ' (relaxed)'} ${fmt(a.p50us)} µs p50, ${fmt(1e6 / a.perSec)} µs mean; ` +
    `the bare pwrite${durable ? ' + fdatasync' : ''} of the same record over bytes written before (as the log writes them: decision 0051) ${fmt(w.p50us)} µs p50.`
  );
}

