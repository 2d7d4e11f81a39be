// Counts the requests a catalog makes of its object store: the cost a cloud bill sees per commit. The bench
// builds it (tsconfig.bench.json) from here, beside the conformance suite it passes.
import type { ObjectInfo, ObjectStore } from '../../../src/store/object-store.js';

export interface RequestCounts {
  get: number;
  create: number;
  list: number;
  delete: number;
  replace: number;
  info: number;
}

export class CountingStore implements ObjectStore {
  readonly counts: RequestCounts = { get: 0, create: 0, list: 0, delete: 0, replace: 0, info: 0 };
  readonly description: string;
  readonly maxKeyBytes: number;
  readonly localRoot: string | undefined;

  constructor(private readonly inner: ObjectStore) {
    this.description = inner.description;
    this.maxKeyBytes = inner.maxKeyBytes;
    // A segmented log's appends go to files beside the objects, past this wrapper: they are no requests.
    this.localRoot = inner.localRoot;
  }

  info(key: string): Promise<ObjectInfo | undefined> {
    this.counts.info++;
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

  get(key: string): Promise<Uint8Array | undefined> {
    this.counts.get++;
    return this.inner.get(key);
  }

  putIfAbsent(key: string, body: Uint8Array): Promise<boolean> {
    this.counts.create++;
    return this.inner.putIfAbsent(key, body);
  }

  replace(key: string, body: Uint8Array): Promise<void> {
    this.counts.replace++;
    return this.inner.replace(key, body);
  }

  async *list(prefix: string, options?: { startAfter?: string }): AsyncIterable<ObjectInfo> {
    // One request per page of up to 1,000 keys, as S3 pages.
    let n = 0;
    for await (const key of this.inner.list(prefix, options)) {
      if (n++ % 1000 === 0) this.counts.list++;
      yield key;
    }
    if (n === 0) this.counts.list++;
  }

  delete(keys: readonly string[]): Promise<void> {
    // One request per key, as S3Store deletes.
    this.counts.delete += keys.length;
    return this.inner.delete(keys);
  }

  sweep(before: number, dryRun: boolean): Promise<string[]> {
    return this.inner.sweep(before, dryRun);
  }

  total(): number {
    return this.counts.get + this.counts.create + this.counts.list + this.counts.delete + this.counts.replace + this.counts.info;
  }
}
