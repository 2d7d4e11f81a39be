// Every snapshot's commit time, in id order, in memory: "the newest snapshot at or before T" becomes a binary
// search instead of an iterator seek (tens of microseconds through classic-level). Commit times are
// immutable and never decrease with ids, so the timeline may run ahead of a reader's view as long as the
// search stops at that view's newest snapshot. It is filled from the newest applied state, read while no
// apply is in flight and joined by the entries applied while it reads; every apply extends it before its batch.
import type { KvSeq, SnapshotId } from '../../keys/ids.js';
import type { Mutation } from '../../keys/mutation.js';
import { decodeTimeKey, isTimeIndexKey } from '../../keys/snapshots.js';

/** Past this many snapshots the timeline stops growing and lookups go back to the index. */
const MAX_ENTRIES = 4_000_000;

export class SnapshotTimeline {
  private ids = new Float64Array(1024);
  private times = new Float64Array(1024);
  private size = 0;
  private loaded = false;
  private applying = 0;
  /** While a load reads: the entries applied meanwhile, which it adds after what it read. */
  private during: { ids: number[]; times: number[] } | undefined;
  /** Counts what forgets the timeline (unload): a load that saw it change gives up. */
  private forgotten = 0;
  /** The index held more snapshots than it may: no load reads it all again until a deletion may have shrunk it. */
  private tooLarge = false;

  constructor(
    private latest: KvSeq,
    /** Past this many snapshots the timeline is not kept and lookups go back to the index. */
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /** Whether it answers lookups (loaded and not forgotten since). */
  get isLoaded(): boolean {
    return this.loaded;
  }

  /** The newest snapshot with time <= `time` and id <= `head`; undefined if there is none; null if unknown. */
  find(time: number, head: SnapshotId): SnapshotId | undefined | null {
    if (!this.loaded) return null;
    // Last entry with (time <= T and id <= head); both keys grow together, so one binary search on each bound.
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.times[mid]! <= time && this.ids[mid]! <= head) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? undefined : (this.ids[lo - 1]! as SnapshotId);
  }

  /**
   * Loads the whole timeline from the time index of a view of the newest state with no apply in flight; the
   * entries applied while it reads are kept aside (beginApply) and added after what it read, so commits
   * running meanwhile do not make it give up. It gives up if anything is forgotten meanwhile (an excision, a
   * failed apply, a restore from a checkpoint), and if `stop` says so between batches.
   */
  async load(viewSeq: KvSeq, entries: AsyncIterable<[Uint8Array, Uint8Array][]>, stop: () => boolean = () => false): Promise<void> {
    if (this.loaded || this.tooLarge || this.during !== undefined || this.applying > 0 || viewSeq !== this.latest) return;
    const during = { ids: [] as number[], times: [] as number[] };
    const forgotten = this.forgotten;
    this.during = during;
    try {
      const ids: number[] = [];
      const times: number[] = [];
      // Counted with what was applied meanwhile: after each batch, so a read too large stops early, and at the end.
      const tooMany = () => (this.tooLarge = ids.length + during.ids.length > this.maxEntries);
      for await (const batch of entries) {
        if (stop()) return;
        for (const [key] of batch) {
          const { time, id } = decodeTimeKey(key);
          times.push(time);
          ids.push(id);
        }
        if (tooMany()) return;
      }
      if (tooMany() || this.forgotten !== forgotten) return;
      this.size = 0;
      for (let i = 0; i < ids.length; i++) this.push(ids[i]!, times[i]!);
      for (let i = 0; i < during.ids.length; i++) this.push(during.ids[i]!, during.times[i]!);
      this.loaded = this.forgotten === forgotten;
    } finally {
      this.during = undefined;
    }
  }

  /** Forgets everything: the index was replaced wholesale (bootstrap from a checkpoint). */
  reset(latest: KvSeq): void {
    this.unload();
    this.tooLarge = false;
    this.latest = latest;
  }

  beginApply(mutations: readonly Mutation[]): void {
    this.applying++;
    for (const m of mutations) {
      if (!isTimeIndexKey(m.key)) continue;
      if (m.type === 'del') {
        this.unload(); // excision: rebuild on next use
        this.tooLarge = false;
        continue;
      }
      const { time, id } = decodeTimeKey(m.key);
      if (this.loaded) this.push(id, time);
      else if (this.during !== undefined) {
        this.during.ids.push(id);
        this.during.times.push(time);
      }
    }
  }

  endApply(applied: KvSeq | undefined): void {
    this.applying--;
    if (applied !== undefined) this.latest = applied;
    else this.unload();
  }

  private push(id: number, time: number): void {
    if (this.size > 0 && id <= this.ids[this.size - 1]!) return; // replayed or already loaded
    if (this.size === this.maxEntries) {
      this.unload();
      this.tooLarge = true;
      return;
    }
    if (this.size === this.ids.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.ids = grow(this.ids);
      this.times = grow(this.times);
    }
    this.ids[this.size] = id;
    this.times[this.size] = time;
    this.size++;
  }

  private unload(): void {
    this.loaded = false;
    this.size = 0;
    this.forgotten++;
  }
}
