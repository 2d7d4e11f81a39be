// What one process knows of the Iceberg objects it serves: which are in the store (each is immutable and named
// for what it holds, so once seen it needs no second look), and the last tables it made metadata for. A table at
// a snapshot is fixed by its history up to there, the retain-from horizon and the tags that point into it; those
// make the key, so a load that finds its key answers without reading a file version or touching the store.
import type { ObjectStore } from '../store/object-store.js';
import { checksummedName, prefixOf } from '../store/checksummed-names.js';

/** A written object: its key and size. */
export interface Written {
  key: string;
  size: number;
}

/** Writes this many objects at once: a first load writes one manifest per commit group and one list per snapshot. */
const WRITERS = 8;

export class ServedObjects<T> {
  private readonly sizes = new Map<string, Promise<number>>();
  private readonly named = new Map<string, Promise<Written>>();
  private readonly learned = new Map<string, Promise<void>>();
  private readonly tables = new Map<string, T>();

  constructor(
    private readonly store: ObjectStore,
    private readonly capacity = 64,
  ) {}

  /** The object's size, writing it first unless the store has it; each key looked at once per process. */
  putOnce(key: string, bytes: () => Promise<Uint8Array>): Promise<number> {
    let size = this.sizes.get(key);
    if (size === undefined) {
      size = (async () => {
        const there = await this.store.info(key);
        if (there !== undefined) return there.size;
        const b = await bytes();
        await this.store.putIfAbsent(key, b);
        return b.length;
      })();
      // A failed write is tried again by the next load, not remembered.
      size.catch(() => this.sizes.delete(key));
      this.sizes.set(key, size);
    }
    return size;
  }

  /**
   * Lists what the store holds under `base` (a table's prefix), once a process: what `putChecksummed` then
   * finds without a look of its own. One listing instead of one per object a first load names.
   */
  learn(base: string): Promise<void> {
    let learned = this.learned.get(base);
    if (learned === undefined) {
      learned = (async () => {
        for await (const o of this.store.list(base)) {
          const prefix = prefixOf(o.key);
          if (prefix !== undefined && !this.named.has(prefix)) this.named.set(prefix, Promise.resolve({ key: o.key, size: o.size }));
        }
      })();
      learned.catch(() => this.learned.delete(base));
      this.learned.set(base, learned);
    }
    return learned;
  }

  /**
   * The object made from `prefix` (its name carries its bytes' checksum), written unless this process knows
   * the store has it (`learn` first). Its bytes are fixed by what it holds, so a second writer that made it
   * first made the same object under the same name, and writing it again changes nothing.
   */
  putChecksummed(prefix: string, ext: 'avro' | 'parquet', bytes: () => Promise<Uint8Array>): Promise<Written> {
    let written = this.named.get(prefix);
    if (written === undefined) {
      written = (async () => {
        const b = await bytes();
        const key = checksummedName(prefix, b, ext);
        await this.store.putIfAbsent(key, b);
        return { key, size: b.length };
      })();
      written.catch(() => this.named.delete(prefix));
      this.named.set(prefix, written);
    }
    return written;
  }

  /** Runs `tasks`, WRITERS at a time, their results in order. */
  async all<R>(tasks: readonly (() => Promise<R>)[]): Promise<R[]> {
    const out: R[] = new Array(tasks.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < tasks.length; i = next++) out[i] = await tasks[i]!();
    };
    await Promise.all(Array.from({ length: Math.min(WRITERS, tasks.length) }, worker));
    return out;
  }

  table(key: string): T | undefined {
    const hit = this.tables.get(key);
    if (hit !== undefined) {
      this.tables.delete(key);
      this.tables.set(key, hit);
    }
    return hit;
  }

  remember(key: string, value: T): void {
    this.tables.set(key, value);
    if (this.tables.size > this.capacity) this.tables.delete(this.tables.keys().next().value!);
  }
}
