// How a statement is stopped: by its time limit (TIMEOUT), its caller's AbortSignal or the catalog's close()
// (CANCELLED). A stop interrupts the DuckDB connections the statement uses. DuckDB forgets an interrupt that
// arrives between two of its queries (the next one starts afresh), and a statement runs several in turn, so
// a stopped statement's connections are interrupted again every few milliseconds until it ends: whatever it
// runs next fails at once. The statement then answers the stop's error, whatever DuckDB said. A commit is never
// begun once the statement stopped (`check` before it), and one already under way is not undone: the
// statement then answers what it committed.
import type { DuckDBConnection } from '@duckdb/node-api';
import { positiveCount, shown } from '../arguments.js';
import { StrataError } from '../errors.js';

export interface StopOptions {
  /** Stop the statement (TIMEOUT) once it has run this many ms. */
  timeoutMs?: number;
  /** Stop the statement (CANCELLED) when this aborts. */
  signal?: AbortSignal;
}

/** How often a stopped statement's connections are interrupted again, until it ends. */
const REINTERRUPT_MS = 10;

export class Stop {
  private reason: StrataError | undefined;
  private readonly connections = new Set<DuckDBConnection>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly ended: Promise<void>;
  private end!: () => void;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort = () => this.stop(new StrataError('CANCELLED', `${this.what} was cancelled by its signal; nothing of it was committed`));

  /** `what` names the statement in the error (e.g. "the statement", "compact()"). */
  constructor(
    private readonly what: string,
    opts: StopOptions = {},
  ) {
    this.ended = new Promise((resolve) => (this.end = resolve));
    const { timeoutMs, signal } = opts;
    if (signal !== undefined && !(signal instanceof AbortSignal)) throw new StrataError('INVALID_ARGUMENT', `signal must be an AbortSignal (new AbortController().signal), got ${shown(signal)}`);
    this.signal = signal;
    if (timeoutMs !== undefined) {
      const limit = positiveCount('timeoutMs', timeoutMs, 0);
      this.timers.push(setTimeout(() => this.stop(new StrataError('TIMEOUT', `${what} ran past its timeoutMs of ${limit} ms and was stopped; nothing of it was committed`)), limit).unref());
    }
    if (signal?.aborted === true) this.onAbort();
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Stops the statement with `reason` (the first reason wins). */
  stop(reason: StrataError): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.interruptAll();
    this.timers.push(setInterval(() => this.interruptAll(), REINTERRUPT_MS).unref());
  }

  get stopped(): boolean {
    return this.reason !== undefined;
  }

  /** Throws the stop's error once the statement stopped: asked before anything is committed. */
  check(): void {
    if (this.reason !== undefined) throw this.reason;
  }

  /** Interrupts `c` while the statement is stopped, until the returned function is called. */
  watch(c: DuckDBConnection): () => void {
    this.connections.add(c);
    if (this.reason !== undefined) c.interrupt();
    return () => this.connections.delete(c);
  }

  /** What the statement answers for a failure `e`: the stop's error once it stopped, else `e`. */
  outcome(e: unknown): unknown {
    return this.reason ?? e;
  }

  /** Runs `work`, its failure answered as `outcome` says. */
  async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      this.check();
      return await work();
    } catch (e) {
      throw this.outcome(e);
    }
  }

  /** Resolves once the statement ended (`dispose`). */
  settled(): Promise<void> {
    return this.ended;
  }

  /** The statement ended: no more interrupts, timers or listeners. */
  dispose(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.length = 0;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.connections.clear();
    this.end();
  }

  private interruptAll(): void {
    for (const c of this.connections) c.interrupt();
  }
}
