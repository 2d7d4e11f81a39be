// Every failure a caller can act on is a StrataError with a stable code; callers branch on `code`, never on
// message text. Messages say what was asked, what exists, and what to do.
export type ErrorCode =
  | 'SNAPSHOT_NOT_FOUND'
  | 'BEFORE_FIRST_SNAPSHOT'
  | 'OUT_OF_RETENTION'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'DEPENDENT_OBJECTS'
  | 'CONFLICT'
  | 'TAG_NOT_FOUND'
  | 'NO_PREVIOUS_VERSION'
  | 'WALK_LIMIT_EXCEEDED'
  | 'INVALID_ARGUMENT'
  | 'FENCED'
  | 'CORRUPT'
  | 'READ_ONLY'
  | 'STORE_UNAVAILABLE'
  /** A statement stopped by its time limit (sql()'s timeoutMs); nothing of it committed. */
  | 'TIMEOUT'
  /** A statement stopped by its caller's signal, or by close(); nothing of it committed. */
  | 'CANCELLED'
  /** A statement that needed more memory than DuckDB's limit (Catalog.open's sql.memoryLimit); nothing of it committed. */
  | 'OUT_OF_MEMORY';

export interface ErrorDetails {
  /** The snapshot the request named, where it named one. */
  snapshot?: number;
  /** Nearest existing snapshots (SNAPSHOT_NOT_FOUND). */
  nearest?: number[];
  /** First snapshot that exists (BEFORE_FIRST_SNAPSHOT). */
  first?: number;
  cause?: unknown;
}

export class StrataError extends Error {
  override readonly name = 'StrataError';
  readonly snapshot?: number;
  readonly nearest?: number[];
  readonly first?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    details: ErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    if (details.snapshot !== undefined) this.snapshot = details.snapshot;
    if (details.nearest !== undefined) this.nearest = details.nearest;
    if (details.first !== undefined) this.first = details.first;
  }
}

/**
 * The local index could not be written (a full disk, an I/O error). Callers see STORE_UNAVAILABLE; inside,
 * reads treat it apart from a store that cannot be reached: they do not go on with the index as it stands,
 * which may lack commits this process acknowledged.
 */
export class LocalIndexError extends StrataError {}

export function isStrataError(e: unknown, code?: ErrorCode): e is StrataError {
  return e instanceof StrataError && (code === undefined || e.code === code);
}
