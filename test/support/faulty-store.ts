// A store wrapper that injects faults on demand: tests use it to fail or kill a process at an exact point of
// a commit (after the log write, before the index write, …) with the real store underneath.
import type { ObjectInfo, ObjectStore } from '../../src/store/object-store.js';

export interface Faults {
  /** Called before a create; throwing fails the create with nothing written. */
  beforeCreate?: (key: string) => void | Promise<void>;
  /** Called after a create attempt, with its outcome; e.g. kill the process here. */
  afterCreate?: (key: string, created: boolean) => void | Promise<void>;
  /** Called before a get; throwing fails the get. */
  beforeGet?: (key: string) => void | Promise<void>;
  /** Called before each key of a delete; throwing fails the delete there (the keys before it are gone). */
  beforeDelete?: (key: string) => void | Promise<void>;
  /** Called once a listing has been read to its end. */
  afterList?: (prefix: string) => void;
}

export class FaultyStore implements ObjectStore {
  readonly description: string;

  readonly maxKeyBytes: number;

  readonly localRoot: string | undefined;

  constructor(
    private readonly inner: ObjectStore,
    private readonly faults: Faults,
  ) {
    this.description = `${inner.description} (fault-injecting)`;
    this.maxKeyBytes = inner.maxKeyBytes;
    // The segments of a segmented log are files beside the objects, written past this wrapper: their
    // faults are injected at the file system (test/support/faulty-fs.ts).
    this.localRoot = inner.localRoot;
  }

  info(key: string): Promise<ObjectInfo | undefined> {
    return this.inner.info(key);
  }

  clockNow(): number | undefined {
    return this.inner.clockNow();
  }

  readClock(): Promise<void> {
    return this.inner.readClock();
  }

  url(key: string): string {
    return this.inner.url(key);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    await this.faults.beforeGet?.(key);
    return this.inner.get(key);
  }

  async putIfAbsent(key: string, body: Uint8Array): Promise<boolean> {
    await this.faults.beforeCreate?.(key);
    const created = await this.inner.putIfAbsent(key, body);
    await this.faults.afterCreate?.(key, created);
    return created;
  }

  replace(key: string, body: Uint8Array): Promise<void> {
    return this.inner.replace(key, body);
  }

  async *list(prefix: string, options?: { startAfter?: string }): AsyncIterable<ObjectInfo> {
    yield* this.inner.list(prefix, options);
    this.faults.afterList?.(prefix);
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      await this.faults.beforeDelete?.(key);
      await this.inner.delete([key]);
    }
  }

  sweep(before: number, dryRun: boolean): Promise<string[]> {
    return this.inner.sweep(before, dryRun);
  }
}
