import { describe, expect, it } from 'vitest';
import type { ObjectInfo } from '../../../src/store/object-store.js';
import { bytes, type StoreSuite } from './common.js';

export function info({ make }: StoreSuite): void {
  describe('info', () => {
    // What GC reads before it deletes a scheduled object (one written after it was scheduled stays), and a
    // log's writtenAt: the listing's answer for one key, without listing.
    it('is the object\'s listing entry, its size after a replace too, and undefined for a missing key', async () => {
      const s = await make();
      expect(await s.info('data/none')).toBeUndefined();
      await s.putIfAbsent('data/x', bytes('12345'));
      const listed: ObjectInfo[] = [];
      for await (const o of s.list('data/')) listed.push(o);
      const { lastModified, ...entry } = (await s.info('data/x'))!;
      expect(entry).toEqual({ key: 'data/x', size: 5 });
      expect(listed).toEqual([{ ...entry, lastModified: listed[0]!.lastModified }]);
      // S3 answers a HEAD with whole seconds (Last-Modified) and a listing with milliseconds.
      const time = listed[0]!.lastModified;
      expect(lastModified).toBeGreaterThanOrEqual(time - (time % 1000));
      expect(lastModified).toBeLessThanOrEqual(time);
      await s.replace('data/x', bytes('12'));
      expect((await s.info('data/x'))?.size).toBe(2);
    });
  });
}
