// The store's own clock, as its answers tell it: one reading (S3's `Date` header, the modification time of an
// object a directory store just wrote), carried forward by this process's monotonic clock, which no wall
// clock step moves. A catalog compares its clock with it before stamping times on snapshots.
// performance is the global, which Node loads when first used (~1.4 ms of a `strata` call that reads only).

export class StoreClock {
  private reading: { at: number; mono: number } | undefined;

  /** The store said it was `at` (ms since epoch) just now. */
  observe(at: number): void {
    if (Number.isFinite(at)) this.reading = { at, mono: performance.now() };
  }

  /** The store's time now, or undefined before it has told it once. */
  now(): number | undefined {
    return this.reading === undefined ? undefined : this.reading.at + (performance.now() - this.reading.mono);
  }
}
