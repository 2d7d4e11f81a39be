// Timing, statistics and memory for the benchmark suite. Each workload times one operation at a time, so
// latency percentiles are real; throughput is operations (or rows) over the summed operation time.
export interface Sample {
  /** Nanoseconds per operation. */
  ns: number[];
  /** Units of work per operation (1 for an op, rows for a listing). */
  units: number;
  /** Highest resident set size seen while the workload ran, in bytes. */
  peakRss: number;
  /** For operations run concurrently: the wall time of them all, which throughput is measured over. */
  wallNs?: number;
}

export interface Stats {
  perSec: number;
  p50us: number;
  p99us: number;
  peakRssMiB: number;
}

export async function measure(n: number, units: number, op: (i: number) => Promise<unknown> | unknown, untimed?: () => void): Promise<Sample> {
  const ns: number[] = [];
  let peakRss = process.memoryUsage.rss();
  for (let i = 0; i < n; i++) {
    untimed?.();
    const t = process.hrtime.bigint();
    await op(i);
    ns.push(Number(process.hrtime.bigint() - t));
    if (i % 64 === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }
  return { ns, units, peakRss: Math.max(peakRss, process.memoryUsage.rss()) };
}

/**
 * `n` operations from `callers` concurrent callers, each starting its next operation when its last one
 * returns: latency per operation includes the wait for the others; throughput is over the wall time.
 */
export async function measureConcurrent(n: number, callers: number, units: number, op: (i: number) => Promise<unknown>): Promise<Sample> {
  const ns: number[] = [];
  let peakRss = process.memoryUsage.rss();
  let next = 0;
  const start = process.hrtime.bigint();
  const caller = async () => {
    for (let i = next++; i < n; i = next++) {
      const t = process.hrtime.bigint();
      await op(i);
      ns.push(Number(process.hrtime.bigint() - t));
      if (i % 64 === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  const wallNs = Number(process.hrtime.bigint() - start);
  return { ns, units, peakRss: Math.max(peakRss, process.memoryUsage.rss()), wallNs };
}

export function stats(s: Sample): Stats {
  const sorted = [...s.ns].sort((a, b) => a - b);
  const total = s.wallNs ?? sorted.reduce((a, b) => a + b, 0);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! / 1e3;
  return {
    perSec: (sorted.length * s.units) / (total / 1e9),
    p50us: q(0.5),
    p99us: q(0.99),
    peakRssMiB: s.peakRss / 2 ** 20,
  };
}

/** A figure for a report table: thousands separated from 100 up, more decimals below. */
export const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(n >= 10 ? 1 : 2));

/** The run whose throughput is the median of several runs (all its figures come from that one run). */
export function median(runs: Stats[]): Stats {
  return [...runs].sort((a, b) => a.perSec - b.perSec)[Math.floor(runs.length / 2)]!;
}

/** A small deterministic generator, so every side gets the same "random" operations. */
export function rng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}
