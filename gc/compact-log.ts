// Log compaction (docs/decisions/0006): the entries a checkpoint covers are replaced by stubs that hold no
// mutations, so what they wrote (excised rows included) leaves the store while every sequence number stays
// taken: a writer whose index is older than the stubs loses the race for its next entry as it would to any
// writer, reads a stub, and rebuilds its index from the checkpoint. Entry 1 (the catalog's identity and
// snapshot 0) is never compacted.
import { type KvSeq, kvSeq } from '../keys/ids.js';
import type { StoredCheckpoint } from '../src/log/checkpoint.js';
import { durationMs, flag, options } from '../src/arguments.js';

const HOUR = 3600 * 1000;

export interface CompactLogOptions {
  /**
   * Only entries covered by a checkpoint completed at least this long ago (default 1 hour): a process
   * following the log reads every entry well within that, so only one idle for longer has to rebuild.
   */
  minAgeMs?: number;
  /** Say what would be compacted, change nothing (default false). */
  dryRun?: boolean;
}

export interface CompactLogReport {
  dryRun: boolean;
  /** The checkpoint compacted into: every entry from 2 through it is a stub afterwards (null: none old enough). */
  through: KvSeq | null;
  /** Entries stubbed by this run (or, in a dry run, that would be). */
  entries: number;
}

export function checkCompactOptions(opts: CompactLogOptions | undefined): Required<CompactLogOptions> {
  const o = options('compactLog()', opts, ['minAgeMs', 'dryRun']);
  return { minAgeMs: durationMs('minAgeMs', o.minAgeMs, HOUR), dryRun: flag('dryRun', o.dryRun) };
}

/**
 * The entries one run stubs: after those already stubbed (`done`), through the newest complete checkpoint
 * whose manifest is at least minAgeMs old (`now` by the catalog's clock, ages by the store's); undefined
 * when there are none.
 */
export function planLogCompaction(
  stored: readonly StoredCheckpoint[],
  done: KvSeq,
  now: number,
  opts: Required<CompactLogOptions>,
): { from: KvSeq; through: KvSeq } | undefined {
  const into = stored.filter((c) => c.complete && c.lastModified <= now - opts.minAgeMs).at(-1);
  const from = kvSeq(Math.max(2, done + 1));
  return into === undefined || into.seq < from ? undefined : { from, through: into.seq };
}
