// Where a transaction's new ids come from. An id handed to the caller is the id committed (docs/DESIGN.md §6, "Ids
// are stable"; docs/decisions/0009): the first run takes ids from this writer's claimed blocks, which no
// other writer can commit, and a rebase replays each operation with the ids it took the first time.
export type IdKind = 'catalog' | 'file';

/** The ids of each kind that one operation took, in order. */
export type TakenIds = Record<IdKind, number[]>;

export const noIds = (): TakenIds => ({ catalog: [], file: [] });

export interface IdSource {
  /** `n` ids of `kind` that no other transaction, of this writer or another, can commit. */
  take(kind: IdKind, n: number): Promise<number[]>;
}

/**
 * A replay's ids: each operation gets again the ids it took on the first run, then (if on the newer state
 * it needs more, as a restore may) fresh ones.
 */
export class ReplayedIds implements IdSource {
  private left: TakenIds = noIds();

  constructor(private readonly fresh: IdSource) {}

  /** The operation about to be replayed took these. */
  replaying(taken: TakenIds): void {
    this.left = { catalog: taken.catalog.slice(), file: taken.file.slice() };
  }

  async take(kind: IdKind, n: number): Promise<number[]> {
    const again = this.left[kind].splice(0, n);
    return again.length === n ? again : again.concat(await this.fresh.take(kind, n - again.length));
  }
}
