// Turns on a log kept as objects (decision 0060). Nothing in an object store makes one writer the only one,
// and a writer that keeps committing knows the log's end a round trip before one that lost to it has read
// it: left alone, that one can lose every race. So a writer waiting for its turn says so with an object of
// its own, `turns/<since>-<id>` (since: when it began to wait, by the store's clock), and tries only once no
// older mark stands; any other writer that sees a mark tries in its turn too, behind it. A writer that is
// not waiting looks for marks beside every CHECK_EVERY-th create (the same round trip), so a lone writer
// pays a list per that many commits and no round trip.
import { setTimeout as sleep } from 'node:timers/promises';
import { randomHex } from '../random.js';
import type { ObjectStore } from '../store/object-store.js';
import { LastSeen } from '../last-seen.js';

export const TURNS_PREFIX = 'turns/';

/** How often a writer that is not waiting looks for marks beside its create. */
const CHECK_EVERY = 4;

/**
 * How long a mark stands without being renewed: a waiter renews its own every MARK_RENEW_MS, so only one
 * that died leaves one older, which then holds the others back this long once (S3 dates objects in whole
 * seconds, and the store's clock is read from its answers).
 */
const MARK_HOLDS_MS = 6_000;
const MARK_RENEW_MS = 2_000;

/** A mark's name: nothing else under the prefix is one (a data path of a catalog made before it was reserved). */
const MARK = /^turns\/\d{20}-[0-9a-f]{16}$/;

/** The pause between two looks of a waiter (on S3 each look is a round trip besides). */
const LOOK_MS = 1;

const EMPTY = new Uint8Array(0);

export class Turns {
  /** When this process last saw another writer's mark. */
  private readonly waiterSeen = new LastSeen();
  private creates = 0;

  constructor(private readonly store: ObjectStore) {}

  /** Whether this process saw another writer waiting within the last `ms`. */
  sawWaiterWithin(ms: number): boolean {
    return this.waiterSeen.within(ms);
  }

  /** Beside a create outside a turn: every CHECK_EVERY-th, a look for marks (what it sees is remembered, never thrown). */
  beside(): Promise<void> | undefined {
    if (this.creates++ % CHECK_EVERY !== 0) return undefined;
    return this.olderThan(undefined).then(
      (waiting) => {
        if (waiting) this.waiterSeen.now();
      },
      () => undefined,
    );
  }

  /**
   * Runs `fn` once no mark older than this writer's stands, with its own mark standing meanwhile (and gone
   * after, whatever `fn` did); `meanwhile` runs between two looks. The marks only order the writers: when
   * one cannot be written or listed (a store that refuses the prefix), `fn` runs without waiting, as before
   * turns, and its outcome is the store's answer to the commit.
   */
  async run<T>(fn: () => Promise<T>, meanwhile?: () => Promise<void>): Promise<T> {
    // Whole milliseconds: the names sort as the times do.
    const mine = `${TURNS_PREFIX}${String(Math.floor(this.now())).padStart(20, '0')}-${randomHex(8)}`;
    const marked = this.store.putIfAbsent(mine, EMPTY);
    try {
      await this.waitBehind(mine, marked, meanwhile);
      return await fn();
    } finally {
      await marked.catch(() => undefined);
      await this.store.delete([mine]).catch(() => undefined);
    }
  }

  private async waitBehind(mine: string, marked: Promise<boolean>, meanwhile: (() => Promise<void>) | undefined): Promise<void> {
    let renewedAt = performance.now();
    for (let first = true; ; first = false) {
      // A store that cannot write or list the marks leaves the writer unordered, as before turns: the create
      // of the entry is still the only way in.
      const looking = Promise.all([this.olderThan(mine), first ? marked : undefined]).then(
        ([o]) => o,
        () => false,
      );
      // Catching up beside the look (on S3 each is a round trip): the turn then has little left to read.
      const [older] = await Promise.all([looking, first ? undefined : meanwhile?.()]);
      if (!older) return;
      this.waiterSeen.now();
      await sleep(LOOK_MS);
      if (performance.now() - renewedAt > MARK_RENEW_MS) {
        await this.store.replace(mine, EMPTY).catch(() => undefined);
        renewedAt = performance.now();
      }
    }
  }

  /** Whether a mark stands that is older than `mine` (undefined: any other writer's). */
  private async olderThan(mine: string | undefined): Promise<boolean> {
    const now = this.now();
    const dead: string[] = [];
    try {
      for await (const o of this.store.list(TURNS_PREFIX)) {
        if (!MARK.test(o.key)) continue;
        if (mine !== undefined && o.key >= mine) return false;
        if (now - o.lastModified <= MARK_HOLDS_MS) return true;
        dead.push(o.key);
      }
      return false;
    } finally {
      // The marks of writers that died waiting: whoever comes across them clears them (nothing waits on it).
      if (dead.length > 0) this.store.delete(dead).catch(() => undefined);
    }
  }

  private now(): number {
    return this.store.clockNow() ?? Date.now();
  }
}
