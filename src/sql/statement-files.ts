// The files one statement reads, held until it is done, and when their first-read checks (decision 0013)
// must have passed. A SELECT's answer only leaves once they have: its checks run while DuckDB reads
// (decision 0013), and a check that fails is the statement's error whatever DuckDB made of the file. A
// write checks each file before DuckDB reads it, so nothing it commits was made from a damaged file.
import type { Held, LocalFiles } from './local-files.js';
import type { RecordedFile } from '../store/recorded-bytes.js';

/** 'before-read': hold() returns once the files checked out. 'beside-read': at once, checks still running. */
export type CheckOrder = 'before-read' | 'beside-read';

export class StatementFiles {
  private readonly held: Held[] = [];

  constructor(
    private readonly local: LocalFiles,
    private readonly order: CheckOrder,
  ) {}

  /** The local paths DuckDB reads the files at, in order. */
  async hold(files: readonly RecordedFile[]): Promise<string[]> {
    const h = await this.local.hold(files);
    this.held.push(h);
    if (this.order === 'before-read') await h.checked;
    return h.paths;
  }

  /**
   * A check of what the held files hold, beyond their bytes (a delete file's positions): awaited now before a
   * write reads, and beside a SELECT's read like the checks of `hold`.
   */
  async check(work: Promise<void>): Promise<void> {
    work.catch(() => undefined); // its statement awaits it
    this.held.push({ paths: [], checked: work, release: () => undefined });
    if (this.order === 'before-read') await work;
  }

  /** `work`'s value once every file held so far checked out; a check's error wins over `work`'s. */
  async answer<T>(work: Promise<T>): Promise<T> {
    const value = await work.catch((e: unknown) => this.failed(e));
    await this.checked();
    return value;
  }

  /** Throws the error of a check that failed, else `e`: what a statement whose DuckDB work threw `e` reports. */
  private async failed(e: unknown): Promise<never> {
    await this.checked();
    throw e;
  }

  /**
   * A stream of DuckDB's, its first batch only once every file checked out: a stream never shows rows of a
   * damaged file. A check's error wins over the stream's own.
   */
  async streamed<C, T>(stream: Promise<{ columns: C; batches: AsyncGenerator<T> }>): Promise<{ columns: C; batches: AsyncGenerator<T> }> {
    const { columns, batches } = await stream.catch((e: unknown) => this.failed(e));
    return { columns, batches: this.afterChecks(batches) };
  }

  private async *afterChecks<T>(batches: AsyncGenerator<T>): AsyncGenerator<T> {
    const first = await this.answer(batches.next());
    if (first.done === true) return;
    yield first.value;
    yield* batches;
  }

  release(): void {
    for (const h of this.held) h.release();
    this.held.length = 0;
  }

  private async checked(): Promise<void> {
    for (const h of this.held) await h.checked;
  }
}
