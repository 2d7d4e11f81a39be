// The checks of a file a transaction registers that need its bytes, which the transaction layer cannot read
// (it knows no Parquet): the catalog hands it these (TxnContext.files). A file the store does not hold yet
// (an engine may register one before it is uploaded) is let through, and checked when a statement first
// reads it (query.ts scanAt). On S3 the file is fetched into the local cache, where the first query that
// reads it finds it (decision 0040).
import { StrataError } from '../errors.js';
import type { FileInspector } from '../txn/transaction.js';
import { type DeletePositionChecks, identityOf } from './delete-positions.js';
import { type LocalFiles, recordedFile } from './local-files.js';
import type { ObjectStore } from '../store/object-store.js';
import { StatementFiles } from './statement-files.js';

export class RegistrationChecks implements FileInspector {
  /** Registrations checked out in this process: a rebase replays them, under the writer lock, without a request. */
  private readonly passed = new Set<string>();

  constructor(
    private readonly ctx: { store: ObjectStore; dataPath: string; files: LocalFiles; positions: DeletePositionChecks },
  ) {}

  async deleteFile(dataFile: { id: number; recordCount: number }, file: { path: string; deleteCount: number; fileSizeBytes: number; contentCrc32: number | null }): Promise<void> {
    const recorded = recordedFile(this.ctx.dataPath, file);
    const registration = `${identityOf(recorded)}/${dataFile.recordCount}/${file.deleteCount}`;
    if (this.passed.has(registration) || (await this.ctx.store.info(recorded.key)) === undefined) return;
    const held = new StatementFiles(this.ctx.files, 'before-read');
    try {
      const [local] = await held.hold([recorded]).catch((e: unknown) => {
        throw new StrataError('INVALID_ARGUMENT', `delete file ${file.path} is not the file addDeleteFile describes: ${(e as Error).message}`, { cause: e });
      });
      const [problem] = await this.ctx.positions.problems([{ local: local!, identity: identityOf(recorded), recordCount: dataFile.recordCount, deleteCount: file.deleteCount }]);
      if (problem !== undefined) {
        throw new StrataError(
          'INVALID_ARGUMENT',
          `delete file ${file.path} does not fit data file ${dataFile.id} (${dataFile.recordCount} rows): ${problem}; nothing was registered — ` +
            `write each deleted row's position once (0 to ${dataFile.recordCount - 1}) and give deleteCount as how many there are`,
        );
      }
      this.passed.add(registration);
    } finally {
      held.release();
    }
  }
}
