// A count of something that happens in another part of a test (a request reaching a fake server, a store
// drawing the jitter of a pause), to wait on as an event rather than for a while.

export class Occurrences {
  private count = 0;
  private readonly waiting: [number, () => void][] = [];

  happened(): void {
    this.count++;
    for (const [n, resolve] of this.waiting) if (this.count >= n) resolve();
  }

  /** Settles once it has happened `n` times in all. */
  reached(n: number): Promise<void> {
    return new Promise((resolve) => (this.count >= n ? resolve() : this.waiting.push([n, resolve])));
  }

  get times(): number {
    return this.count;
  }
}
