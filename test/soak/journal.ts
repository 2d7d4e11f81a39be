// The writers' journals: one line per acknowledged commit, with what the writer's own model says its rows
// add up to after it. A writer touches only its own rows (w = its number), so the table at snapshot s is,
// writer by writer, what that writer's last commit at or before s left. A reader waits until every journal
// has reached s (or its writer finished) before it compares: a commit is acknowledged before it is journalled.
import * as fs from 'node:fs';

/** Per writer: how many rows, and the sums of n and of v. */
export interface Totals {
  rows: number;
  sumN: number;
  sumV: number;
}

export interface JournalLine extends Totals {
  snapshot: number;
  op: 'insert' | 'update' | 'delete';
  /** Time the commit was acknowledged (ms since epoch) and how long it took. */
  t: number;
  latencyMs: number;
}

export const DONE = { done: true } as const;

/** Follows one writer's journal as it grows. */
export class JournalFollower {
  readonly lines: JournalLine[] = [];

  done = false;

  private offset = 0;

  private partial = '';

  constructor(private readonly file: string) {}

  poll(): void {
    if (!fs.existsSync(this.file)) return;
    const fd = fs.openSync(this.file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      if (size <= this.offset) return;
      const buffer = Buffer.alloc(size - this.offset);
      fs.readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset = size;
      const text = this.partial + buffer.toString('utf8');
      const parts = text.split('\n');
      this.partial = parts.pop()!;
      for (const p of parts) {
        const line = JSON.parse(p) as JournalLine | typeof DONE;
        if ('done' in line) this.done = true;
        else this.lines.push(line);
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Whether every commit of this writer at or before `snapshot` is in the journal. */
  covers(snapshot: number): boolean {
    return this.done || (this.lines.at(-1)?.snapshot ?? -1) >= snapshot;
  }

  /** The writer's rows at `snapshot`: its last commit at or before it (none yet: no rows). */
  totalsAt(snapshot: number): Totals {
    let lo = 0;
    let hi = this.lines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.lines[mid]!.snapshot <= snapshot) lo = mid + 1;
      else hi = mid;
    }
    const last = this.lines[lo - 1];
    return last ? { rows: last.rows, sumN: last.sumN, sumV: last.sumV } : { rows: 0, sumN: 0, sumV: 0 };
  }
}

/** The query every checker runs, and its rows as totals per writer. */
export const TOTALS_SQL = 'SELECT w, count(*)::BIGINT AS rows, coalesce(sum(n), 0)::BIGINT AS sum_n, coalesce(sum(v), 0)::BIGINT AS sum_v FROM main.events GROUP BY w ORDER BY w';

export function totalsOf(rows: Record<string, unknown>[], writers: number): Totals[] {
  const out = Array.from({ length: writers }, () => ({ rows: 0, sumN: 0, sumV: 0 }));
  for (const r of rows) out[Number(r.w)] = { rows: Number(r.rows), sumN: Number(r.sum_n), sumV: Number(r.sum_v) };
  return out;
}
