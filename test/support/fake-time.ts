// Time a test moves itself: setTimeout, clearTimeout and performance.now are vitest's fake timers, while
// everything else (sockets, files, child processes) stays real. A bound in time is then checked exactly —
// the operation still waits a millisecond before its budget is up, and is over at it — however loaded the
// machine is: the test moves time only at an event after which the operation waits on a timer alone (its
// request at a server that will never answer it, its pause before a retry armed).
import { afterEach, beforeEach, expect, vi } from 'vitest';
import type { Occurrences } from './occurrences.js';

/** Fake time in every test of the calling file (or describe block). */
export function fakeTimeInEachTest(): void {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

export interface Running {
  readonly settled: boolean;
  /** How it failed (an Error saying it succeeded, if it did), and when: fake ms after it started. */
  readonly failure: Promise<{ err: Error; ms: number }>;
}

/** Starts `op` at the fake time now. */
export function start(op: () => Promise<unknown>): Running {
  const t0 = performance.now();
  const run: { settled: boolean; failure?: Promise<{ err: Error; ms: number }> } = { settled: false };
  run.failure = op()
    .then(
      () => new Error('it succeeded'),
      (e: unknown) => e as Error,
    )
    .then((err) => {
      run.settled = true;
      return { err, ms: performance.now() - t0 };
    });
  return run as Running;
}

/**
 * Moves fake time on by `ms`, checking that `run` is still under way a millisecond short of it: what "its
 * budget ends `ms` from now" means. Whether it ended there, the caller reads from `failure`.
 */
export async function waitsFor(run: Running, ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms - 1);
  expect(run.settled, `over before ${ms} ms`).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
}

/**
 * Runs `run` to its end where its attempts fail fast and it pauses between them: each time the store has
 * drawn the jitter of a pause (`draws`), time moves to the next timer — that pause, the only timer armed
 * while no request is in flight — or, where the store gave up instead, nowhere.
 */
export async function throughPauses(run: Running, draws: Occurrences): Promise<{ err: Error; ms: number }> {
  for (let n = draws.times + 1; !run.settled; n++) {
    if ((await Promise.race([run.failure.then(() => 'over'), draws.reached(n).then(() => 'drawn')])) === 'over') break;
    await vi.advanceTimersToNextTimerAsync();
  }
  return run.failure;
}
