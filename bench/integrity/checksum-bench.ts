// What checksums cost: log entries, checkpoint chunks and manifests are checksummed frames (format 2, a
// CRC-32 of the payload); before, plain frames (format 1). The same payloads — taken from a real catalog's
// log and checkpoint — are framed and read back both ways in this run, so the difference is the checksum's.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { checkedFrame, frame, unframe } from '../../keys/framing.js';
import { Catalog } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { fmt, median } from '../harness.js';

interface Payload {
  name: string;
  value: unknown;
  bytes: number;
}

/** A one-file commit's log entry, a 100-file commit's, and a checkpoint chunk, as a real catalog wrote them. */
async function payloads(dir: string): Promise<Payload[]> {
  // Entries kept as objects, so each is read back alone by its key (on segments they are records in a file).
  const c = await Catalog.open({ dir, checkpointEvery: 0, durability: 'relaxed', logLayout: 'objects' });
  await c.transaction(async (tx) => {
    await tx.createSchema('s');
    await tx.createTable('s', 't', [{ name: 'a', type: 'int64' }]);
  });
  await c.transaction((tx) => tx.addDataFile('s', 't', { path: 'one/file.parquet', recordCount: 10, fileSizeBytes: 1000 }));
  await c.transaction(async (tx) => {
    for (let f = 0; f < 100; f++) await tx.addDataFile('s', 't', { path: `many/file-${f}.parquet`, recordCount: 10, fileSizeBytes: 1000 });
  });
  for (let i = 0; i < 200; i++) {
    await c.transaction(async (tx) => {
      for (let f = 0; f < 100; f++) await tx.addDataFile('s', 't', { path: `bulk/${i}/file-${f}.parquet`, recordCount: 10, fileSizeBytes: 1000 });
    });
  }
  await c.checkpoint();
  await c.close();
  const store = new DirectoryStore(path.join(dir, 'store'));
  const read = async (key: string, name: string) => {
    const bytes = (await store.get(key))!;
    return { name, value: unframe(bytes), bytes: bytes.length };
  };
  // Found by the snapshot they create (1: the table, 2: one file, 3: a hundred), not by their place in
  // the log, which also holds the claims of id blocks.
  const bySnapshot = new Map<unknown, string>();
  for await (const o of store.list('log/')) bySnapshot.set((unframe((await store.get(o.key))!) as { snapshot?: unknown }).snapshot, o.key);
  let chunk = '';
  for await (const o of store.list('checkpoints/')) if (o.key.endsWith('chunk-000001')) chunk = o.key;
  return [await read(bySnapshot.get(2)!, 'log entry, 1 file'), await read(bySnapshot.get(3)!, 'log entry, 100 files'), await read(chunk, 'checkpoint chunk')];
}

function timeUs(runs: number, n: number, op: () => unknown): number {
  const perRun: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) op();
    perRun.push(Number(process.hrtime.bigint() - t) / 1000 / n);
  }
  return median(perRun.map((us) => ({ perSec: us, p50us: us, p99us: us, peakRssMiB: 0 }))).perSec;
}

export async function checksumBench(quick: boolean, out: (s?: string) => void): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'strata-bench-checksums-'));
  try {
    const all = await payloads(dir);
    out('\n### the cost of checksums: framing and reading back what the store holds\n');
    out(
      'The payloads of a real catalog\'s log entries and checkpoint chunk, framed with a CRC-32 (format 2, what is written now) and ' +
        'without (format 1, what was written before), then read back (the checksum verified), in this process; median of 5 rounds.\n',
    );
    out('| payload | bytes | write µs, plain | write µs, checksummed | read µs, plain | read µs, checksummed | extra µs per object |');
    out('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const p of all) {
      const n = p.bytes > 1_000_000 ? (quick ? 5 : 20) : quick ? 2_000 : 20_000;
      const plain = frame(p.value);
      const checked = checkedFrame(p.value);
      const writePlain = timeUs(5, n, () => frame(p.value));
      const writeChecked = timeUs(5, n, () => checkedFrame(p.value));
      const readPlain = timeUs(5, n, () => unframe(plain));
      const readChecked = timeUs(5, n, () => unframe(checked));
      const extra = writeChecked - writePlain + (readChecked - readPlain);
      out(`| ${p.name} | ${fmt(p.bytes)} | ${fmt(writePlain)} | ${fmt(writeChecked)} | ${fmt(readPlain)} | ${fmt(readChecked)} | ${fmt(extra)} |`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
