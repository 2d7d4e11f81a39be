// The files one statement reads, held until it is done. Each is checked the first time a process reads it
// (decision 0013), before DuckDB reads it (decision 0024): a damaged file is the check's CORRUPT naming it,
// never rows DuckDB made of it, and never a DuckDB crash on it.
import type { LocalFiles } from './local-files.js';
import type { RecordedFile } from '../store/recorded-bytes.js';

export class StatementFiles {
  private readonly held: { release(): void }[] = [];

  constructor(private readonly local: LocalFiles) {}

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

  release(): void {
    for (const h of this.held) h.release();
    this.held.length = 0;
  }
}
