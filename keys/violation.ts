// What verify reports: the family modules' invariants each return these (see ARCHITECTURE.md, "Invariants").
/** One broken invariant, as verify reports it: which rule, where, and what was found. */
export interface Violation {
  invariant: string;
  /** The store object it was found in (a log entry, a checkpoint chunk, a data file). */
  object?: string;
  /** The index key it was found at, as keyToString shows it. */
  key?: string;
  message: string;
}
