// The rules of protection.ts at their edges: which snapshots are protected (tags, and leases until the very
// millisecond they expire), which versions a protected snapshot keeps, when a scheduled file is due and when an
// unnamed object is old enough to be an orphan. A rule off by one here deletes what a reader can still reach.
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isOrphanAge, isProtected, protectedSnapshots, scheduledFate } from '../../gc/protection.js';
import { kvSeq, snapshotId } from '../../keys/ids.js';
import { putLease, putTag } from '../../keys/retention.js';
import { KvStore } from '../../src/kv/kv-store.js';
import { tempDir } from '../helpers.js';

const stores: KvStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

const NOW = Date.UTC(2026, 0, 1);

describe('protectedSnapshots', () => {
  it('are the tagged snapshots and those of leases expiring after now, each once, in numeric order', async () => {
    const kv = await KvStore.open(path.join(await tempDir(), 'index'));
    stores.push(kv);
    const lease = (snapshot: number, expiresAt: number) => ({ holder: 'h', snapshot: snapshotId(snapshot), expiresAt, createdAt: NOW - 1000 });
    await kv.apply(kvSeq(1), 'txn-1', [
      // Scanned in name order: 30 before 9 before 10, which neither insertion nor text order sorts.
      putTag('a', { snapshot: snapshotId(30), createdAt: NOW }),
      putTag('b', { snapshot: snapshotId(9), createdAt: NOW }),
      putTag('c', { snapshot: snapshotId(10), createdAt: NOW }),
      putLease('l1', lease(100, NOW + 1)),
      putLease('l2', lease(4, NOW)), // expires this very millisecond: protects nothing any more
      putLease('l3', lease(3, NOW - 1)),
      putLease('l4', lease(30, NOW + 60_000)), // a snapshot a tag holds too
    ]);
    const view = await kv.readView();
    try {
      expect(await protectedSnapshots(view, NOW)).toEqual([9, 10, 30, 100]);
      expect(await protectedSnapshots(view, NOW - 1)).toEqual([4, 9, 10, 30, 100]);
    } finally {
      await view.close();
    }
  });
});

describe('isProtected: a protected p with begin <= p < end keeps a version', () => {
  it('holds at begin, not at end, and only for a protected snapshot inside the span', () => {
    const sorted = [2, 5, 9];
    expect(isProtected(sorted, 5, 6)).toBe(true);
    expect(isProtected(sorted, 3, 6)).toBe(true);
    expect(isProtected(sorted, 0, 3)).toBe(true);
    expect(isProtected(sorted, 6, 10)).toBe(true);
    expect(isProtected(sorted, 3, 5)).toBe(false); // 5 is where the version ended: it does not see it
    expect(isProtected(sorted, 6, 9)).toBe(false);
    expect(isProtected(sorted, 10, 20)).toBe(false); // past the last protected snapshot
    expect(isProtected([], 0, 100)).toBe(false);
  });
});

describe('scheduledFate', () => {
  it('a path a row names again is never due; one unnamed is due from the millisecond its grace ends', () => {
    expect(scheduledFate(true, 0, 0, NOW)).toBe('named');
    expect(scheduledFate(false, NOW - 1000, 1000, NOW)).toBe('due');
    expect(scheduledFate(false, NOW - 999, 1000, NOW)).toBe('waiting');
  });
});

describe('isOrphanAge', () => {
  it('an unnamed object is an orphan from the millisecond it is minAgeMs old', () => {
    expect(isOrphanAge(NOW - 1000, 1000, NOW)).toBe(true);
    expect(isOrphanAge(NOW - 999, 1000, NOW)).toBe(false);
  });
});
