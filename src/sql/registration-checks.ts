// The checks of a file a transaction registers that read its bytes, which the transaction layer cannot (it
// knows no Parquet): whoever runs a transaction hands it these (TxnSql.files). They read a file where it
// lies, on a store whose objects are this machine's files (a directory); they make no request of the store,
// which the commit path must not (one conditional write per commit, docs/DESIGN.md §7). A file they cannot look at
// — not in the store yet (an engine may register one before it uploads it), or on S3 — is registered as
// given and checked when a statement first reads it (scanAt): a delete file's positions, a data file's
// field ids (decisions 0040, 0041). Files this process wrote itself are known, and not read again.
import { existsSync } from 'node:fs';
import type { NameMappingColumn } from '../../keys/name-mappings.js';
import { StrataError } from '../errors.js';
import type { ColumnInfo } from '../read/records.js';
import type { ObjectStore } from '../store/object-store.js';
import type { FileInspector } from '../txn/transaction.js';
import type { DeletePositionChecks } from './delete-positions.js';
import type { Connections } from './engine.js';
import { type FieldIdChecks, fileColumns, nameMappingOf, readByFieldIds } from './file-columns.js';
import { footerColumns } from './parquet-footer.js';
import { identityOf, recordedFile } from './local-files.js';

type Recorded = { path: string; fileSizeBytes: number; contentCrc32: number | null };

export class RegistrationChecks implements FileInspector {
  /** Registrations checked out in this process: a rebase replays them, under the writer lock, without a read. */
  private readonly passed = new Map<string, NameMappingColumn[] | undefined>();

  constructor(
    private readonly ctx: { store: ObjectStore; dataPath: string; engine: Connections; positions: DeletePositionChecks; fieldIds: FieldIdChecks },
  ) {}

  async deleteFile(dataFile: { id: number; recordCount: number }, file: Recorded & { deleteCount: number }): Promise<void> {
    const local = this.here(file);
    if (local === undefined) return;
    await this.once(file, `${dataFile.recordCount}/${file.deleteCount}`, async (identity) => {
      const [problem] = await this.ctx.positions.problems([{ local, identity, recordCount: dataFile.recordCount, deleteCount: file.deleteCount }]);
      if (problem !== undefined) {
        throw new StrataError(
          'INVALID_ARGUMENT',
          `delete file ${file.path} does not fit data file ${dataFile.id} (${dataFile.recordCount} rows): ${problem}; nothing was registered — ` +
            `write each deleted row's position once (0 to ${dataFile.recordCount - 1}) and give deleteCount as how many there are`,
        );
      }
      return undefined;
    });
  }

  async dataFile(table: string, columns: () => Promise<readonly ColumnInfo[]>, file: Recorded): Promise<NameMappingColumn[] | undefined> {
    const local = this.here(file);
    if (local === undefined || (await this.ctx.fieldIds.wroteWithFieldIds(identityOf(recordedFile(this.ctx.dataPath, file))))) return undefined;
    const live = await columns();
    return this.once(file, JSON.stringify([table, live]), async () => {
      // A file whose columns carry field ids needs only its footer, read here; one read by name needs DuckDB's
      // types too. A file DuckDB cannot read as Parquet is left to the query that reads it, which says it is damaged.
      const footer = footerColumns(local);
      if (footer !== undefined && readByFieldIds(table, live, file.path, footer)) return undefined;
      const found = await this.ctx.engine.withConnection((c) => fileColumns(c, [local])).catch(() => undefined);
      return found === undefined ? undefined : nameMappingOf(table, live, file.path, found.get(local)!);
    });
  }

  /** The file's path on this machine, where the store is a directory that holds it and can name it. */
  private here(file: Recorded): string | undefined {
    const local = this.localFile(recordedFile(this.ctx.dataPath, file).key);
    return local !== undefined && existsSync(local) ? local : undefined;
  }

  /**
   * `check`'s answer for a file, once per process for its bytes' identity and what it is checked `against`.
   * Its bytes are checked against their record (size, CRC-32) by the first read, as every file's are
   * (decision 0013).
   */
  private async once(file: Recorded, against: string, check: (identity: string) => Promise<NameMappingColumn[] | undefined>): Promise<NameMappingColumn[] | undefined> {
    const identity = identityOf(recordedFile(this.ctx.dataPath, file));
    const registration = `${identity}/${against}`;
    if (this.passed.has(registration)) return this.passed.get(registration);
    const answer = await check(identity);
    this.passed.set(registration, answer);
    return answer;
  }

  /** Where the object lies on this machine, if the store is a directory and can name it (its keys are bounded). */
  private localFile(key: string): string | undefined {
    if (this.ctx.store.localRoot === undefined) return undefined;
    try {
      return this.ctx.store.url(key);
    } catch {
      return undefined;
    }
  }
}
