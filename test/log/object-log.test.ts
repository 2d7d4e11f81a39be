// The object layout of the commit log against the conformance suite: on a directory, on S3, and through each
// test double of a store over a directory.
import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import type { KvSeq } from '../../keys/ids.js';
import { logObjectKey, ObjectLog } from '../../src/log/object-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import type { ObjectStore } from '../../src/store/object-store.js';
import { S3Store } from '../../src/store/s3-store.js';
import { tempDir } from '../helpers.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { passThroughDoubles } from '../store/doubles/pass-through.js';
import { freshS3Store, s3Options } from '../store/s3-env.js';
import { commitLogConformance, type LogHarness } from './conformance/index.js';

/** `open` returns a new store instance on the same objects each call: one per process that would hold one. */
function objectLayout(open: () => ObjectStore): LogHarness {
  const store = open();
  const log = new ObjectLog(store);
  const stored = async (seq: KvSeq) => {
    const bytes = await store.get(logObjectKey(seq));
    if (bytes === undefined) throw new Error(`the store has no object for log entry ${seq}`);
    return bytes;
  };
  return {
    log,
    reopen: async () => new ObjectLog(open()),
    async damage(seq, how) {
      const bytes = Uint8Array.from(await stored(seq));
      if ('truncate' in how) {
        await store.replace(logObjectKey(seq), bytes.subarray(0, how.truncate % bytes.length));
        return;
      }
      const at = how.flip % bytes.length;
      bytes[at] = bytes[at]! ^ how.xor;
      await store.replace(logObjectKey(seq), bytes);
    },
    remove: (seq) => store.delete([logObjectKey(seq)]),
    misplace: async (from, to) => store.replace(logObjectKey(to), await stored(from)),
    async interruptCheckpoint(seq) {
      // The manifest is written last and marks a checkpoint complete (src/log/checkpoint.ts).
      const c = (await log.checkpoints.list()).find((s) => s.seq === seq);
      if (c === undefined) throw new Error(`the store has no checkpoint ${seq}`);
      await store.delete(c.keys.filter((k) => k.endsWith('/manifest')));
    },
    async holdLook(seq) {
      let looked!: () => void;
      let release!: () => void;
      const lookedAt = new Promise<void>((resolve) => (looked = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      let begun = false;
      const isHeld = (op: string, key: string) => op === 'get' && key === logObjectKey(seq);
      const holding = new FaultyStore(open(), {
        // Looks begun after the held one (head probes two entries at once) wait before they look.
        async beforeOperation(_n, op, key) {
          if (isHeld(op, key) && !begun) begun = true;
          else if (begun) await released;
        },
        async afterOperation(_n, op, key) {
          if (!isHeld(op, key)) return;
          looked();
          await released;
        },
      });
      return { log: new ObjectLog(holding), looked: lookedAt, release };
    },
  };
}

const objects = { entriesByName: true };

commitLogConformance('object layout on a directory', async () => {
  const dir = await tempDir();
  return objectLayout(() => new DirectoryStore(dir));
}, objects);

for (const [name, wrap] of Object.entries(passThroughDoubles)) {
  commitLogConformance(`object layout through the ${name} over a directory`, async () => {
    const dir = await tempDir();
    return objectLayout(() => wrap(new DirectoryStore(dir)));
  }, objects);
}

const opts = s3Options();

if (opts === undefined) {
  describe.skip('CommitLog conformance: object layout on S3 (no S3 server: run ../shared/s3/start-s3.sh and export its variables)', () => {
    it('needs a server', () => undefined);
  });
} else {
  commitLogConformance('object layout on S3', async () => {
    await freshS3Store(opts); // makes sure the bucket exists
    const prefix = `t-${randomUUID()}`;
    return objectLayout(() => new S3Store({ ...opts, prefix }));
  }, objects);
}
