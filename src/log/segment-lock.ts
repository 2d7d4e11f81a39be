// The append lock of the segmented log: flock(2) on `segments/LOCK`, taken by the processes of one host in
// turn while they append (released by the kernel if a holder dies). The file also holds a generation that
// moves whenever a segment is created or replaced, so a holder knows to read the directory again rather
// than append to a tail that is no longer the tail; after it, the newest entry whose append began (written
// before the record), so a reader or writer asking "anything new?" reads 16 bytes instead of the tail; and
// last, an entry through which the tail is known to be on disk, where a new handle may enter it (decision 0051).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setImmediate as yieldTurn, setTimeout as sleep } from 'node:timers/promises';
import type FsExt from 'fs-ext';
import { makeDirs } from '../make-dirs.js';
import { onFirstUse } from '../on-first-use.js';

const LOCK_FILE = 'LOCK';

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
  /** A read-only descriptor for readers that never append (the lock file may not exist yet). */
  private peekFd: number | undefined;

  constructor(
    private readonly dir: string,
    private readonly sync: boolean,
  ) {}

  /**
   * Takes the lock, waiting while another holder has it — by trying again, not by a blocking flock: that
   * would hold one of libuv's four threads, which the holder itself may need to finish its append.
   */
  async take(): Promise<void> {
    let leave!: () => void;
    const before = this.queue;
    this.queue = new Promise((resolve) => (leave = resolve));
    await before;
    try {
      await this.flock(this.file());
    } catch (e) {
      leave();
      throw e;
    }
    this.leave = leave;
  }

  release(): void {
    const leave = this.leave;
    this.leave = undefined;
    try {
      fsExt().flockSync(this.fd!, 'un');
    } finally {
      leave?.();
    }
  }

  private async flock(fd: number): Promise<void> {
    for (let n = 0; ; n++) {
      try {
        fsExt().flockSync(fd, 'exnb');
        return;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') throw e;
      }
      if (n < 50) await yieldTurn();
      else await sleep(Math.min(5, 2 ** ((n - 50) / 8)));
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

const state = Buffer.alloc(24);

function readState(fd: number): LockState {
  const n = fs.readSync(fd, state, 0, 24, 0);
  // A lock file a version before this one wrote has no third word: nothing is said to be synced.
  return { generation: n >= 8 ? state.readDoubleBE(0) : 0, head: n >= 16 ? state.readDoubleBE(8) : 0, synced: n === 24 ? state.readDoubleBE(16) : 0 };
}
