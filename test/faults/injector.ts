// Counts every operation the workload's store takes — object calls through FaultyStore and, on a
// segmented log, the appends and syncs of its segment files (faulty-fs.ts) — and injects one fault at the
// i-th: a failure before it (nothing done), a failure after it (done, the answer lost; a segment sync that
// reports EIO after writing), or a SIGKILL of the process right after it.
import { DirectoryStore } from '../../src/store/directory-store.js';
import type { ObjectStore } from '../../src/index.js';
import { injectFsFaults } from '../support/faulty-fs.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { INJECTED, storeDir } from './workload.js';

export const MODES = ['fail-before', 'fail-after', 'kill-after'] as const;
export type Mode = (typeof MODES)[number];
export interface Plan {
  mode: Mode | 'count';
  /** The operation, from 1. */
  at: number;
}

let active: Injector | undefined;
let fsHooked = false;

export class Injector {
  /** Each operation so far, in order: what it was and its first key. */
  readonly operations: string[] = [];

  /** Whether the planned fault was injected. */
  struck = false;

  constructor(readonly plan: Plan) {}

  /** The store the workload runs on, every operation counted; becomes the process's segment-file injector too. */
  store(root: string): ObjectStore {
    active = this;
    if (!fsHooked) {
      fsHooked = true;
      injectFsFaults({
        // A segment write has no "after" of its own here: a fault planned after it strikes before it.
        beforeSegmentWrite: () => {
          const i = active!.next('segment write');
          active!.strike(i, 'before');
          active!.strike(i, 'after');
        },
        segmentSyncError: () => {
          const i = active!.next('segment sync');
          return active!.strike(i, 'after', () => Object.assign(new Error(`EIO: ${INJECTED} at operation ${i}`), { code: 'EIO', errno: -5 }));
        },
      });
    }
    const index = new Map<number, number>();
    return new FaultyStore(new DirectoryStore(storeDir(root)), {
      beforeOperation: (n, op, key) => {
        const i = this.next(`${op} ${key}`);
        index.set(n, i);
        this.strike(i, 'before');
      },
      afterOperation: (n) => {
        const i = index.get(n)!;
        index.delete(n);
        this.strike(i, 'after');
      },
    });
  }

  private next(what: string): number {
    this.operations.push(what);
    return this.operations.length;
  }

  /** At the planned operation and point: kills, throws, or (for a sync) returns the error it reports. */
  private strike<E>(i: number, point: 'before' | 'after', reported?: () => E): E | undefined {
    if (this.plan.at !== i) return undefined;
    if (this.plan.mode === 'kill-after' && point === 'after') process.kill(process.pid, 'SIGKILL');
    if (this.plan.mode === 'fail-before' || this.plan.mode === 'fail-after') {
      if (reported) return (this.struck = true), reported();
      if (this.plan.mode === `fail-${point}`) {
        this.struck = true;
        throw new Error(`${INJECTED} at operation ${i} (${this.operations[i - 1]})`);
      }
    }
    return undefined;
  }
}
