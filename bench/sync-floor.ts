// The floor under a durable commit on this disk: one small pwrite and one fdatasync, with no catalog at all,
// timed in the same run as the commits. Two shapes, because ext4 makes them cost differently: a write that
// grows the file changes its size, so fdatasync must also commit the journal; a write over bytes that were
// written and synced before changes no metadata fdatasync has to keep. Each segment append is the first
// shape; SQLite's WAL, rewritten from its start once a checkpoint has copied it back, is mostly the second.
import * as fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fmt, measure, median, stats } from './harness.js';

/** One small record per sync. */
const RECORD_BYTES = 512;

/**
 * `n` records of `bytes` written one after the other from the file's start, each fdatasync'd when `sync`;
 * `prewritten`: over bytes written and synced before, so the file does not grow.
 */
export async function timeRecordWrites(file: string, n: number, { bytes, sync, prewritten }: { bytes: number; sync: boolean; prewritten: boolean }) {
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
      }),
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
    for (let run = 0; run < runs; run++) {
      growing.push(await timeRecordWrites(path.join(dir, `grow-${run}`), n, { bytes: RECORD_BYTES, sync: true, prewritten: false }));
      over.push(await timeRecordWrites(path.join(dir, `over-${run}`), n, { bytes: RECORD_BYTES, sync: true, prewritten: true }));
    }
    const [g, o] = [median(growing), median(over)];
    return (
      `The sync alone on the same disk, in this run (${n} of each, median of ${runs} runs, p50): a ${RECORD_BYTES}-byte pwrite + ` +
      `fdatasync that grows its file, as a segment append does, ${fmt(g.p50us)} µs; the same over bytes written and synced ` +
      `before, as SQLite's WAL once it restarts after a checkpoint, ${fmt(o.p50us)} µs (${(g.p50us / o.p50us).toFixed(2)}x).`
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
