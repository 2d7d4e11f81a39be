// When this process last saw something happen (another writer's entry, a writer waiting its turn), on the
// monotonic clock: whether it did so lately decides whether this process's writers take turns (decision 0060).
export class LastSeen {
  private at = -Infinity;

  /** It happened now. */
  now(): void {
    this.at = performance.now();
  }

  /** Whether it happened within the last `ms`. */
  within(ms: number): boolean {
    return performance.now() - this.at < ms;
  }
}
