// The floor under a durable commit on this disk: one small pwrite and one fdatasync, with no catalog at all,
// timed in the same run as the commits. Two shapes, because ext4 makes them cost differently: a write that
// grows the file changes its size, so fdatasync must also commit the journal; a write over bytes that were
// written and synced before changes no metadata fdatasync has to keep. A segment append was the first shape
// and is the second since decision 0051 (space written ahead); SQLite's WAL, rewritten from its start once a
// checkpoint has copied it back, is mostly the second. And a sync on this VM costs more the longer the disk
// was left alone before it: back to back is the best case, and a commit's own work (or a whole group's) comes
// between two syncs, so the second shape is also timed after that much busy time on this thread.
import * as fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fmt, measure, median, type Stats, stats } from './harness.js';

/** One small record per sync. */
const RECORD_BYTES = 512;

/** Busy times before a sync (µs): about one durable one-file commit's other work, and a group of 8's. */
const WORK_BEFORE_US = [200, 2000];

/** Keeps this thread busy for `us` µs, as a commit's own work does between two syncs. */
function busyFor(us: number): void {
  const end = process.hrtime.bigint() + BigInt(us * 1000);
  while (process.hrtime.bigint() < end);
}

/**
 * `n` records of `bytes` written one after the other from the file's start, each fdatasync'd when `sync`;
 * `prewritten`: over bytes written and synced before, so the file does not grow; `workUs`: that much busy
 * time, untimed, before each record.
 */
export async function timeRecordWrites(
  file: string,
  n: number,
  { bytes, sync, prewritten, workUs = 0 }: { bytes: number; sync: boolean; prewritten: boolean; workUs?: number },
) {
  const fd = fs.openSync(file, 'w+');
  try {
    if (prewritten) {
      fs.writeSync(fd, Buffer.alloc(n * bytes));
      fs.fsyncSync(fd);
    }
    const record = Buffer.alloc(bytes, 0x5a);
    return stats(
      await measure(n, 1, (i) => {
        fs.writeSync(fd, record, 0, bytes, i * bytes);
        if (sync) fs.fdatasyncSync(fd);
      }, workUs > 0 ? () => busyFor(workUs) : undefined),
    );
  } finally {
    fs.closeSync(fd);
  }
}

/** One sentence for the report: the median run of `runs`, `n` syncs each, for both shapes. */
export async function syncFloor(n: number, runs: number): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'strata-bench-sync-'));
  try {
    const growing = [];
    const over = [];
    const afterWork = WORK_BEFORE_US.map((): Stats[] => []);
    for (let run = 0; run < runs; run++) {
      growing.push(await timeRecordWrites(path.join(dir, `grow-${run}`), n, { bytes: RECORD_BYTES, sync: true, prewritten: false }));
      over.push(await timeRecordWrites(path.join(dir, `over-${run}`), n, { bytes: RECORD_BYTES, sync: true, prewritten: true }));
      for (const [i, workUs] of WORK_BEFORE_US.entries()) {
        afterWork[i]!.push(await timeRecordWrites(path.join(dir, `work-${workUs}-${run}`), n, { bytes: RECORD_BYTES, sync: true, prewritten: true, workUs }));
      }
    }
    const [g, o] = [median(growing), median(over)];
    const worked = WORK_BEFORE_US.map((us, i) => `${fmt(median(afterWork[i]!).p50us)} µs after ${fmt(us)} µs`).join(' and ');
    return (
      `The sync alone on the same disk, in this run (${n} of each, median of ${runs} runs, p50): a ${RECORD_BYTES}-byte pwrite + ` +
      `fdatasync that grows its file, as a segment append did before decision 0051, ${fmt(g.p50us)} µs; the same over bytes ` +
      `written and synced before, as a segment append does now and SQLite's WAL once it restarts after a checkpoint, ` +
      `${fmt(o.p50us)} µs (${(g.p50us / o.p50us).toFixed(2)}x). Those syncs follow one another; with this thread busy before ` +
      `each one over written bytes, as a commit's work keeps it between two syncs: ${worked}.`
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
