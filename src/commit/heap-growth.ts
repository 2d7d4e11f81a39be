// V8 lets the old generation grow to as much as four times what its last full collection found alive before it
// collects again. verify holds a slice's facts (~75 MiB at 200,000 keys) while it reads through far more
// garbage, so its heap reached ~280 MiB for ~75 alive (392–409 MiB RSS on a 100k-commit catalog; decision
// 0062). While a job like it runs, the growth is held to a fixed factor and put back after: the same catalog
// then peaks at ~250 MiB in the same time. The flag is the process's, read by V8 at each collection; a process
// started with a smaller factor keeps its own.
import { setFlagsFromString } from 'node:v8';

/** How far the heap may grow past what was alive, in percent, while held. */
export const HELD_GROWTH_PERCENT = 50;

const FLAG = /^--heap[-_]growing[-_]percent(?:=(\d+))?$/;

/**
 * The factor this process was started with, from its arguments (`--flag=N` or `--flag N`; Node refuses the flag
 * in NODE_OPTIONS); 0 when none was given, which is V8's own: a factor it picks at each collection.
 */
export function startingGrowthPercent(args: readonly string[]): number {
  let percent = 0;
  args.forEach((arg, i) => {
    const m = FLAG.exec(arg);
    if (m === null) return;
    const given = Number(m[1] ?? args[i + 1]);
    if (Number.isSafeInteger(given) && given >= 0) percent = given;
  });
  return percent;
}

/**
 * Holds the heap's growth while any job it runs is running; the first to start sets it, the last to end restores it.
 * The count is this module's: a second copy of the package, or a worker thread (V8's flags are the process's),
 * restores the flag while another's job still runs — that job then collects as V8 would, nothing worse. A factor
 * set at run time by the application (not in its arguments) is not known, and the process's own is restored.
 */
export class HeapGrowth {
  private running = 0;
  /** Whether holding changes anything: not for a process started with a factor at most the held one. */
  private readonly holds: boolean;

  constructor(
    private readonly setFlags: (flags: string) => void,
    private readonly starting: number,
  ) {
    this.holds = starting === 0 || starting > HELD_GROWTH_PERCENT;
  }

  async held<T>(job: () => Promise<T>): Promise<T> {
    if (this.running++ === 0 && this.holds) this.set(HELD_GROWTH_PERCENT);
    try {
      return await job();
    } finally {
      if (--this.running === 0 && this.holds) this.set(this.starting);
    }
  }

  private set(percent: number): void {
    this.setFlags(`--heap-growing-percent=${percent}`);
  }
}

export const heapGrowth = new HeapGrowth(setFlagsFromString, startingGrowthPercent(process.execArgv));
