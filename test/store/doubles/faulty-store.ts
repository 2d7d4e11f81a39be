// A store wrapper that injects faults on demand: tests use it to fail or kill a process at an exact point of
// a commit (after the log write, before the index write, …) with the real store underneath.
import type { ObjectInfo, ObjectStore } from '../../../src/store/object-store.js';

/** Every call an ObjectStore takes; a delete of many keys, or a listing read to its end, is one. */
export type StoreOperation = 'get' | 'putIfAbsent' | 'replace' | 'list' | 'info' | 'delete' | 'sweep' | 'readClock';

export interface Faults {
  /** Called before every operation (the n-th of this store, from 1), with its first key; throwing fails it with nothing done. */
  beforeOperation?: (n: number, op: StoreOperation, key: string) => void | Promise<void>;
  /** Called after the n-th operation completed, before its caller has the answer; throwing loses the answer. */
  afterOperation?: (n: number, op: StoreOperation, key: string) => void | Promise<void>;
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
  /** Objects a listing leaves out, as if this process could not see them. */
  unlisted?: (key: string) => boolean;
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

  private operations = 0;

  private async around<T>(op: StoreOperation, key: string, run: () => Promise<T>): Promise<T> {
    const n = ++this.operations;
    await this.faults.beforeOperation?.(n, op, key);
    const result = await run();
    await this.faults.afterOperation?.(n, op, key);
    return result;
  }

  info(key: string): Promise<ObjectInfo | undefined> {
    return this.around('info', key, () => this.inner.info(key));
  }

  clockNow(): number | undefined {
    return this.inner.clockNow();
  }

  readClock(): Promise<void> {
    return this.around('readClock', '', () => this.inner.readClock());
  }

  url(key: string): string {
    return this.inner.url(key);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    await this.faults.beforeGet?.(key);
    return this.around('get', key, () => this.inner.get(key));
  }

  async putIfAbsent(key: string, body: Uint8Array): Promise<boolean> {
    await this.faults.beforeCreate?.(key);
    const created = await this.around('putIfAbsent', key, () => this.inner.putIfAbsent(key, body));
    await this.faults.afterCreate?.(key, created);
    return created;
  }

  replace(key: string, body: Uint8Array): Promise<void> {
    return this.around('replace', key, () => this.inner.replace(key, body));
  }

  async *list(prefix: string, options?: { startAfter?: string }): AsyncIterable<ObjectInfo> {
    const n = ++this.operations;
    await this.faults.beforeOperation?.(n, 'list', prefix);
    let failed = false;
    try {
      for await (const o of this.inner.list(prefix, options)) if (this.faults.unlisted?.(o.key) !== true) yield o;
    } catch (e) {
      failed = true;
      throw e;
    } finally {
      // Also when the caller stops reading early: the listing it had is its answer.
      if (!failed) await this.faults.afterOperation?.(n, 'list', prefix);
    }
    this.faults.afterList?.(prefix);
  }

  delete(keys: readonly string[]): Promise<void> {
    return this.around('delete', keys[0] ?? '', async () => {
      for (const key of keys) {
        await this.faults.beforeDelete?.(key);
        await this.inner.delete([key]);
      }
    });
  }

  sweep(before: number, dryRun: boolean): Promise<string[]> {
    return this.around('sweep', '', () => this.inner.sweep(before, dryRun));
  }
}
