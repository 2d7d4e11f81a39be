// The object store is the durable, shared half of Strata: the commit log (and later checkpoints) live here,
// and the data files the engine writes live under its data path. Create-if-absent is the only coordination
// primitive between machines, so every implementation must make it atomic.
import { StrataError } from '../errors.js';

/** A listed object: its key, when it was last written (ms since epoch, the store's clock), and its size in bytes. */
export interface ObjectInfo {
  key: string;
  lastModified: number;
  size: number;
}

export interface ObjectStore {
  /** Where the store is, for messages (never contains credentials). */
  readonly description: string;
  /** Where an engine finds the object: a file path, or a URL such as s3://bucket/prefix/key. */
  url(key: string): string;
  /**
   * The directory on this machine whose files are the objects, when the store is one (a directory store,
   * or a wrapper of one): where a segmented commit log keeps its segments beside them.
   */
  readonly localRoot?: string | undefined;
  /**
   * The longest key, in UTF-8 bytes, the store can address: S3's 1,024 less its prefix, a file system's
   * path limit less the root. Keys the catalog records for later deletion are checked against it.
   */
  readonly maxKeyBytes: number;
  /**
   * The store's own clock now (ms since epoch): its newest answer's time — S3's `Date` header, whole
   * seconds; the modification time of the newest object a directory store wrote — carried forward by this
   * process's monotonic clock. Undefined until the store has told its time once (see readClock).
   */
  clockNow(): number | undefined;
  /** Asks the store for its time (a request, or a probe write), so that clockNow() has an answer. */
  readClock(): Promise<void>;
  /** The object's bytes, or undefined if there is no object under `key`. */
  get(key: string): Promise<Uint8Array | undefined>;
  /**
   * Creates `key` with `body` only if no object has that name: true if this call created it, false if it
   * existed. A reader never sees a partly written object under its final name.
   */
  putIfAbsent(key: string, body: Uint8Array): Promise<boolean>;
  /**
   * Writes `body` under `key` whether or not an object has that name. A reader sees the old object or the
   * new one, never a mix. Only log compaction uses it, on entries every index has long read.
   */
  replace(key: string, body: Uint8Array): Promise<void>;
  /** Objects whose keys start with `prefix`, in key byte order, after `startAfter` when given. Pages internally. */
  list(prefix: string, options?: { startAfter?: string }): AsyncIterable<ObjectInfo>;
  /** The object's listing entry (its size and when it was last written), or undefined if there is none. */
  info(key: string): Promise<ObjectInfo | undefined>;
  /**
   * Deletes the objects, several at once; a key that does not exist is not an error. Never through a
   * symbolic link, never outside the store: such a key is INVALID_ARGUMENT. After a failure, which of the
   * other objects went is not said: a caller that must know deletes the keys of a failed call one by one.
   */
  delete(keys: readonly string[]): Promise<void>;
  /**
   * What writes cut short by a crash left behind, last written before `before` (ms since epoch; a live
   * write's leftovers are younger): removed, unless `dryRun`, and named as store-relative paths. Never an
   * object: the directory store's temporary files, S3's probe objects of the conditional-write check.
   */
  sweep(before: number, dryRun: boolean): Promise<string[]>;
  /** Lets go of what the store holds open (S3: its client and connections). Optional: most hold nothing. */
  close?(): void;
}

/** The longest key any store takes, in UTF-16 units (S3's limit is 1,024 bytes; so is every store's maxKeyBytes at most). */
export const MAX_OBJECT_KEY = 1024;

/** One pass, no allocation: every store call checks its key, and readers probe the log on each open. */
function isValidObjectKey(key: string): boolean {
  if (key.length === 0 || key.length > MAX_OBJECT_KEY) return false;
  let segmentStart = true;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c === 0) return false;
    if (c === 0x2f /* / */) {
      if (segmentStart) return false; // empty segment
      segmentStart = true;
    } else {
      if (segmentStart && c === 0x2e /* . */) return false;
      segmentStart = false;
    }
  }
  return !segmentStart; // no trailing '/'
}

/**
 * Keys are `/`-separated relative names: no empty, `.` or `..` segments, no segment starting with `.`.
 * Strata never uses one key as a folder of another (`a` and `a/b`), which a directory cannot hold.
 */
export function assertValidObjectKey(key: string): void {
  if (!isValidObjectKey(key)) {
    throw new StrataError(
      'INVALID_ARGUMENT',
      `object key ${JSON.stringify(key)} is not valid: use non-empty '/'-separated segments that do not start with '.'`,
    );
  }
}
