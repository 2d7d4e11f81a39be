// The writers waiting for the segmented log's append lock (decision 0060), kept in the lock file past its
// state: flock(2) is not fair, and a writer that lets the lock go and takes it again at once keeps it from
// one that waits. Each waiter stands in a slot of its own with the time it began to wait; the one that began
// first (ties by id) is the only one that takes the lock, and a writer that is not waiting lets any waiter in
// first. A waiter renews its slot at each look (at least every 5 ms, and after each catch-up), so a slot not
// renewed for STANDS_MS is a waiter that died, or one its machine stalled that long, and its slot is free again.
import * as fs from 'node:fs';

/** Writers that can stand in line at once; any more wait unseen (no one lets them in first) until a slot frees. */
const SLOTS = 16;
/** A slot: the waiter's id, when it last renewed the slot and since when it has waited (ms since epoch). */
const SLOT_BYTES = 24;
const STANDS_MS = 1_000;

const slots = Buffer.alloc(SLOTS * SLOT_BYTES);
const slot = Buffer.alloc(SLOT_BYTES);

interface Waiter {
  id: number;
  since: number;
  slot: number;
}

export class Waiters {
  constructor(
    private readonly fd: () => number,
    /** Where the slots begin in the lock file (after its state: segment-lock.ts). */
    private readonly at: number,
  ) {}

  /** Whether a writer other than `id` waits. */
  othersWait(id: number): boolean {
    return this.read().waiting.some((w) => w.id !== id);
  }

  /** Whether `id`, waiting since `since`, is first in line: no other writer began to wait before it. */
  first(id: number, since: number): boolean {
    return !this.read().waiting.some((w) => w.id !== id && (w.since < since || (w.since === since && w.id < id)));
  }

  /** Stands `id` in line (waiting since `since`), or renews its slot; unless every slot is taken. */
  stand(id: number, since: number): void {
    const { waiting, free } = this.read();
    const index = waiting.find((w) => w.id === id)?.slot ?? free;
    if (index === undefined) return;
    slot.writeDoubleBE(id);
    slot.writeDoubleBE(Date.now(), 8);
    slot.writeDoubleBE(since, 16);
    fs.writeSync(this.fd(), slot, 0, SLOT_BYTES, this.at + index * SLOT_BYTES);
  }

  /** Takes `id` out of the line. */
  leave(id: number): void {
    const index = this.read().waiting.find((w) => w.id === id)?.slot;
    if (index === undefined) return;
    slot.fill(0);
    fs.writeSync(this.fd(), slot, 0, SLOT_BYTES, this.at + index * SLOT_BYTES);
  }

  /** The writers waiting (their slots renewed within STANDS_MS), and the first slot free for another. */
  private read(): { waiting: Waiter[]; free: number | undefined } {
    const n = fs.readSync(this.fd(), slots, 0, slots.length, this.at);
    slots.fill(0, n);
    const now = Date.now();
    const waiting: Waiter[] = [];
    let free: number | undefined;
    for (let i = 0; i < SLOTS; i++) {
      const id = slots.readDoubleBE(i * SLOT_BYTES);
      if (id !== 0 && now - slots.readDoubleBE(i * SLOT_BYTES + 8) <= STANDS_MS) waiting.push({ id, since: slots.readDoubleBE(i * SLOT_BYTES + 16), slot: i });
      else free ??= i;
    }
    return { waiting, free };
  }
}
