// The append lock of the segmented log: flock(2) on `segments/LOCK`, taken by the processes of one host in
// turn while they append (released by the kernel if a holder dies). The file also holds a generation that
// moves whenever a segment is created or replaced, so a holder knows to read the directory again rather
// than append to a tail that is no longer the tail; after it, the newest entry whose append began (written
// before the record), so a reader or writer asking "anything new?" reads 16 bytes instead of the tail; and
// last, an entry through which the tail is known to be on disk, where a new handle may enter it (decision 0051).
// Past those, what the last holder to let it go wrote there, and the writers waiting for their turn in line
// (segment-waiters.ts, decision 0060).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setImmediate as yieldTurn, setTimeout as sleep } from 'node:timers/promises';
import type FsExt from 'fs-ext';
import { makeDirs } from '../make-dirs.js';
import { onFirstUse } from '../on-first-use.js';
import { Waiters } from './segment-waiters.js';

const LOCK_FILE = 'LOCK';

/** Where the lock file says a holder let the lock go (LockState.released); the waiters' slots follow. */
const RELEASED_AT = 24;
const releasedBytes = Buffer.alloc(8);

/** How long a waiter sleeps between looks where no write to the lock file wakes it first. */
const WAIT_LOOK_MS = 5;

/** Written when the lock is let go while a writer waits: what a waiter watches (not the lock file, which every append writes). */
const TURN_FILE = 'TURN';
const POKE = Buffer.from([1]);

/** flock(2), from a native addon: a process that only reads never loads it (every `strata` call that reads). */
export const fsExt = onFirstUse<typeof FsExt>('fs-ext');

/** What the lock file says: its generation, and the newest entry whose append began (0: none said yet). */
export interface LockState {
  generation: number;
  head: number;
  /**
   * An entry through which every record of its segment was on disk when it was written (0: none said): it
   * is written only after a sync of the segment returned, so a crash that kept it kept those records too,
   * and none of them is ever cut. What lies past it may have gaps after a crash in relaxed mode, where later
   * pages of a file can reach the disk before earlier ones.
   */
  synced: number;
  /**
   * A value each holder writes anew as it lets the lock go: a reader that found a record damaged and sees
   * this and `head` as they were before it looked, and no holder now, knows no append was written meanwhile.
   */
  released: number;
}

interface WaitOptions {
  /** Taken as a writer that waits for its turn, in line (see takeInTurn). */
  waiting?: boolean;
  /** Run between two looks of a writer waiting in line. */
  meanwhile?: (() => Promise<void>) | undefined;
}

export class AppendLock {
  private fd: number | undefined;
  /**
   * The holders inside this process, in turn: flock(2) is held by the open file, and this process has one, so
   * a second taker here (a compaction beside a commit's append) would be let in at once.
   */
  private queue: Promise<void> = Promise.resolve();
  /** Lets the next taker of this process in: set while this process holds the lock. */
  private leave: (() => void) | undefined;
  /** This handle's id in the line of waiters. */
  private readonly id = Math.floor(Math.random() * 2 ** 48) + 1;
  private readonly waiters = new Waiters(() => this.file(), RELEASED_AT + 8);
  /** A read-only descriptor for readers that never append (the lock file may not exist yet). */
  private peekFd: number | undefined;
  /** Wakes a waiter when a holder lets the lock go (inotify on TURN_FILE), so it need not look every millisecond. */
  private watcher: fs.FSWatcher | undefined;
  private wake: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly sync: boolean,
  ) {}

  /**
   * Takes the lock, waiting while another holder has it — by trying again, not by a blocking flock: that
   * would hold one of libuv's four threads, which the holder itself may need to finish its append.
   */
  async take(opts: WaitOptions = {}): Promise<void> {
    let leave!: () => void;
    const before = this.queue;
    this.queue = new Promise((resolve) => (leave = resolve));
    await before;
    try {
      if (this.closed) throw new Error('the log was closed');
      await (opts.waiting === true ? this.takeInTurn(this.file(), opts.meanwhile) : this.flock(this.file()));
    } catch (e) {
      leave();
      throw e;
    }
    this.leave = leave;
  }

  /**
   * Under the lock: whether another writer waits for its turn, so this holder should write nothing and let
   * it in (its own next try waits in line).
   */
  othersWait(): boolean {
    return this.waiters.othersWait(this.id);
  }

  /**
   * Takes the lock as a writer waiting for its turn: in line (segment-waiters.ts), trying only while first
   * in it, and then only once no writer that began to wait earlier stands in it, looked at again under the
   * lock (one may have stood in line between the look and the flock).
   */
  private async takeInTurn(fd: number, meanwhile: (() => Promise<void>) | undefined): Promise<void> {
    const since = Date.now();
    try {
      for (let n = 0; ; n++) {
        this.waiters.stand(this.id, since);
        if (this.waiters.first(this.id, since) && this.tryFlock(fd)) {
          if (this.waiters.first(this.id, since)) {
            this.waiters.leave(this.id);
            return;
          }
          fsExt().flockSync(fd, 'un');
        }
        if (meanwhile !== undefined) {
          await meanwhile();
          // Renewed after it too: a long catch-up (a rebuild from a checkpoint) would let the slot lapse.
          this.waiters.stand(this.id, since);
        }
        await (n < 5 ? yieldTurn() : this.changeOrAfter(WAIT_LOOK_MS));
        if (this.closed) throw new Error('the log was closed while this writer waited for its turn');
      }
    } catch (e) {
      // Out of the line (close() took it out already).
      if (!this.closed) this.waiters.leave(this.id);
      throw e;
    }
  }

  /** Resolves when the lock is next let go while a writer waits (a write to TURN_FILE), or after `ms` where that is not told. */
  private changeOrAfter(ms: number): Promise<void> {
    if (this.watcher === undefined) {
      try {
        fs.closeSync(fs.openSync(path.join(this.dir, TURN_FILE), 'a'));
        this.watcher = fs.watch(path.join(this.dir, TURN_FILE), { persistent: false }, () => this.wake?.());
        // A watch that fails later (the file removed) leaves the waiter looking every `ms`.
        this.watcher.on('error', () => undefined);
      } catch {
        // A file system that cannot watch: the waiter looks every `ms`.
      }
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /** Wakes the waiters. */
  private poke(): void {
    try {
      fs.writeFileSync(path.join(this.dir, TURN_FILE), POKE);
    } catch {
      // Waiters look again within WAIT_LOOK_MS anyway.
    }
  }

  /**
   * Whether another holder has the lock now (another process, or another handle of this one): a record
   * found part-written may then be an append under way, which is whole once the lock is let go.
   */
  heldElsewhere(): boolean {
    if (this.leave !== undefined || this.closed) return false;
    // Its own descriptor: a lock taken and let go on the appending one would let go of a holder's there.
    try {
      this.peekFd ??= fs.openSync(path.join(this.dir, LOCK_FILE), 'r');
    } catch {
      return false;
    }
    if (!this.tryFlock(this.peekFd, 'shnb')) return true;
    fsExt().flockSync(this.peekFd, 'un');
    return false;
  }

  release(): void {
    const leave = this.leave;
    this.leave = undefined;
    try {
      // Hints both (a reader's look, a waiter's sleep): one that cannot be written keeps no one from the lock,
      // and fails nothing already done under it.
      try {
        releasedBytes.writeDoubleBE(Math.random());
        fs.writeSync(this.fd!, releasedBytes, 0, 8, RELEASED_AT);
      } catch {
        // A reader then waits for its deadline on a record it found damaged.
      }
      fsExt().flockSync(this.fd!, 'un');
      try {
        if (this.othersWait()) this.poke();
      } catch {
        // Waiters look again within WAIT_LOOK_MS.
      }
    } finally {
      leave?.();
    }
  }

  private async flock(fd: number): Promise<void> {
    for (let n = 0; !this.tryFlock(fd); n++) {
      if (n < 50) await yieldTurn();
      else await sleep(Math.min(5, 2 ** ((n - 50) / 8)));
    }
  }

  private tryFlock(fd: number, how: 'exnb' | 'shnb' = 'exnb'): boolean {
    try {
      fsExt().flockSync(fd, how);
      return true;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') throw e;
      return false;
    }
  }

  generation(): number {
    return this.state().generation;
  }

  /** The lock file's state, read once. */
  state(): LockState {
    return readState(this.file());
  }

  /**
   * The lock file's state as a reader sees it, without the lock and without making the file: undefined when
   * no writer has made it yet (then a reader must look at the directory itself).
   */
  peek(): LockState | undefined {
    if (this.fd !== undefined) return readState(this.fd);
    if (this.peekFd === undefined) {
      try {
        this.peekFd = fs.openSync(path.join(this.dir, LOCK_FILE), 'r');
      } catch {
        return undefined;
      }
    }
    return readState(this.peekFd);
  }

  /**
   * Under the lock, before entry `seq` is written (a write that fails leaves it ahead of the log). Not
   * synced: after a machine crash it may be behind the log, which only processes that open again (and read
   * the log, not this) come across; ahead of it, it is not equal to what a reader or writer has, so either
   * reads the tail. With it, `synced` (LockState.synced): what the announcing handle knows to be on disk.
   */
  announce(seq: number, synced: number): void {
    const b = Buffer.alloc(16);
    b.writeDoubleBE(seq);
    b.writeDoubleBE(synced, 8);
    fs.writeSync(this.file(), b, 0, 16, 8);
  }

  /** Under the lock: tells every other holder that the segments changed. */
  bump(): void {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(this.generation() + 1);
    fs.writeSync(this.file(), b, 0, 8, 0);
  }

  close(): void {
    // A writer that waits in line when its log closes leaves it.
    if (this.fd !== undefined && !this.closed) this.waiters.leave(this.id);
    this.closed = true;
    this.watcher?.close();
    this.watcher = undefined;
    for (const fd of [this.fd, this.peekFd]) if (fd !== undefined) fs.closeSync(fd);
    this.fd = this.peekFd = undefined;
  }

  /** The lock file, made (with the segment directory, durably when syncing) on first use. */
  private file(): number {
    if (this.fd === undefined) {
      if (makeDirs(this.dir) !== undefined && this.sync) {
        const parent = fs.openSync(path.dirname(this.dir), 'r');
        fs.fsyncSync(parent);
        fs.closeSync(parent);
      }
      // Not 'a+': Linux appends every write to a file opened O_APPEND, whatever the position asked for.
      this.fd = fs.openSync(path.join(this.dir, LOCK_FILE), fs.constants.O_RDWR | fs.constants.O_CREAT);
    }
    return this.fd;
  }
}

const state = Buffer.alloc(RELEASED_AT + 8);

function readState(fd: number): LockState {
  const n = fs.readSync(fd, state, 0, state.length, 0);
  // A lock file a version before this one wrote has no third word: nothing is said to be synced.
  return {
    generation: n >= 8 ? state.readDoubleBE(0) : 0,
    head: n >= 16 ? state.readDoubleBE(8) : 0,
    synced: n >= 24 ? state.readDoubleBE(16) : 0,
    released: n >= RELEASED_AT + 8 ? state.readDoubleBE(RELEASED_AT) : 0,
  };
}
