// What background work (following, automatic checkpoints) and commits whose index write failed leave for the
// caller to see: followStatus().
import { StrataError } from '../errors.js';

export function asStrataError(e: unknown): StrataError {
  return e instanceof StrataError ? e : new StrataError('STORE_UNAVAILABLE', String(e), { cause: e });
}

export class FollowStatus {
  lastRefreshAt: Date | null = null;
  lastError: StrataError | null = null;

  failed(e: unknown): void {
    this.lastError = asStrataError(e);
  }

  refreshed(at: Date): void {
    this.lastRefreshAt = at;
    this.lastError = null;
  }

  current(): { lastRefreshAt: Date | null; lastError: StrataError | null } {
    return { lastRefreshAt: this.lastRefreshAt, lastError: this.lastError };
  }
}
