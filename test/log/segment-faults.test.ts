// A segmented log's appends when the disk fails them: a write that fails, or a sync that reports an error
// after the bytes were written, is cut back under the lock — the append fails STORE_UNAVAILABLE, no reader
// ever gets the entry, and the next append takes that number. Faults are injected at node:fs (faulty-fs.ts),
// which this file's worker alone patches.
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { isStrataError } from '../../src/errors.js';
import { SegmentLog } from '../../src/log/segment-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { injectFsFaults } from '../support/faulty-fs.js';
import { entry } from '../support/segments.js';
import { tempDir } from '../helpers.js';

let failWrite = false;
let failSync = false;
injectFsFaults({
  beforeSegmentWrite: () => {
    if (failWrite) throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
  },
  segmentSyncError: () => (failSync ? Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }) : undefined),
});


describe('segment appends the disk fails', () => {
  for (const fault of ['write', 'sync'] as const) {
    it(`a failed ${fault} is cut back: STORE_UNAVAILABLE, never an entry, and the number is taken by the next append`, async () => {
      const root = await tempDir();
      const log = new SegmentLog(new DirectoryStore(root), root);
      for (let s = 1; s <= 3; s++) expect(await log.append(entry(s))).toBe(true);
      const reader = new SegmentLog(new DirectoryStore(root), root);
      expect(await reader.head(kvSeq(0))).toBe(3);
      if (fault === 'write') failWrite = true;
      else failSync = true;
      const err = await log.append(entry(4)).catch((e: unknown) => e);
      failWrite = failSync = false;
      expect(isStrataError(err, 'STORE_UNAVAILABLE'), String(err)).toBe(true);
      expect((err as Error).message).toMatch(/log entry 4 was not written.*EIO/);
      expect(await reader.read(kvSeq(4))).toBeUndefined();
      expect(await new SegmentLog(new DirectoryStore(root), root).head(kvSeq(0))).toBe(3);
      const next = entry(4);
      expect(await log.append(next)).toBe(true);
      expect((await reader.read(kvSeq(4)))!.txn).toBe(next.txn);
      expect(await new SegmentLog(new DirectoryStore(root), root).head(kvSeq(0))).toBe(4);
    });
  }
});
