// The files one statement reads, held until it is done. Each is checked the first time a process reads it
// (decision 0013), before DuckDB reads it (decision 0024): a damaged file is the check's CORRUPT naming it,
// never rows DuckDB made of it, and never a DuckDB crash on it.
import type { LocalFiles } from './local-files.js';
import type { RecordedFile } from '../store/recorded-bytes.js';

export class StatementFiles {
  private readonly held: { release(): void }[] = [];
  private readonly vouching: Promise<void>[] = [];

  /**
   * `answersAfterChecks`: the statement gives no answer before checked() — a SELECT, which returns rows and
   * builds on nothing —, so a check of what it reads may run beside it rather than before it (vouch).
   */
  constructor(
    private readonly local: LocalFiles,
    readonly answersAfterChecks = false,
  ) {}

  /** The local paths DuckDB reads the files at, in order, once their bytes checked out. */
  async hold(files: readonly RecordedFile[]): Promise<string[]> {
    const h = await this.local.hold(files);
    this.held.push(h);
    return h.paths;
  }

  /** Something else the statement holds until it is done (kept positions: kept-positions.ts). */
  keep(h: { release(): void }): void {
    this.held.push(h);
  }

  /** A check the statement's answer waits for (only where answersAfterChecks); its failure is heard by checked(). */
  vouch(check: Promise<void>): void {
    check.catch(() => undefined);
    this.vouching.push(check);
  }

  /** Settles once every vouched check passed; the first to fail, in the order they were vouched, is thrown. */
  async checked(): Promise<void> {
    for (const check of this.vouching) await check;
  }

  release(): void {
    for (const h of this.held) h.release();
    this.held.length = 0;
  }
}
