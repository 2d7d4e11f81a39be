// The lifecycle every versioned and append-only row shares (docs/DESIGN.md §2): a version is created under a new key
// ending in its begin snapshot, with `end: null`; it is ended by rewriting its value with the end, and the
// end index learns of it in the same batch (excision scans that index). Versions never overwrite each other.
import type { SnapshotId } from './ids.js';
import { beginOf, decodeKey, encodeKey, type Field, type Key } from './key-codec.js';
import { endIndexKey } from './end-index.js';
import { type Mutation, putRow } from './mutation.js';
import type { Group } from './groups.js';
import type { Space } from './spaces.js';
import { decodeValue } from './value-codec.js';
import type { Violation } from './violation.js';

export interface Versioned {
  end: SnapshotId | null;
}

/** A row together with the snapshot that wrote it (the key's begin_snapshot). */
export interface Version<T> {
  begin: SnapshotId;
  row: T;
}

/** A row as a transaction builds it: the end is the lifecycle's business. */
export type Row<T> = Omit<T, 'end'>;

const EMPTY = {};
const noNote = (): object => EMPTY;
const nothingElse = (): Mutation[] => [];

/** One entity of a versioned space (a schema, a table's column, a data file): the group of its versions. */
export class Entity<R extends Versioned> implements Group {
  constructor(
    readonly space: Space,
    readonly fields: readonly Field[],
    /** What the end index records beside the ended key (files: their object path, for excision). */
    private readonly endNote: (row: R) => object = noNote,
    /** Other index entries that follow a version's end (data files: the end by file id). */
    private readonly alsoOnEnd: (at: SnapshotId) => Mutation[] = nothingElse,
  ) {}

  key(begin: number): Key {
    return encodeKey(this.space, this.fields, begin);
  }

  /** A new version beginning at `at`. */
  create(at: SnapshotId, row: Row<R>): Mutation {
    return putRow(this.key(at), { ...row, end: null });
  }

  /** The version `v` ends at `at`: it stays under its key, with its end. */
  end(v: Version<Row<R> | R>, at: SnapshotId): Mutation[] {
    const key = this.key(v.begin);
    const row = { ...v.row, end: at } as R;
    return [putRow(key, row), putRow(endIndexKey(at, key), this.endNote(row)), ...this.alsoOnEnd(at)];
  }
}

/** One stored version, decoded and frozen: the shape groups are read in, from the cache or not. */
export interface StoredVersion {
  readonly key: Key;
  /** The key's identifying fields, decoded once. */
  readonly fields: readonly Field[];
  readonly begin: number;
  readonly row: unknown;
}

export function decodeVersion(key: Key, bytes: Uint8Array, fields: readonly Field[] = decodeKey(key).fields): StoredVersion {
  return Object.freeze({ key, fields, begin: beginOf(key), row: Object.freeze(decodeValue(key, bytes)) });
}

/**
 * The versions of one entity, in key (= begin) order: each ends after it begins (a record-only one may end as
 * it begins), and none overlaps the next (only the newest may be open). Overlapping versions would give a snapshot two answers.
 */
export function versionRunProblems(run: readonly { key: string; begin: number; end: number | null; recordOnly?: boolean }[]): Violation[] {
  const out: Violation[] = [];
  run.forEach((v, i) => {
    // A record-only version (visible at no snapshot) may end where it begins; none may end before.
    if (v.end !== null && (v.end < v.begin || (v.end === v.begin && v.recordOnly !== true))) out.push({ invariant: 'version-ends-after-it-begins', key: v.key, message: `a version that begins at snapshot ${v.begin} ends at ${v.end}` });
    const next = run[i + 1];
    if (next !== undefined && (v.end === null || v.end > next.begin)) {
      out.push({
        invariant: 'versions-do-not-overlap',
        key: v.key,
        message: `this version (snapshots ${v.begin}–${v.end ?? 'now'}) overlaps the next one of the same entity, which begins at ${next.begin}`,
      });
    }
  });
  return out;
}
