// Random histories with random GC against a simple model: the contents of every snapshot as it was when
// committed, the tags, the leases and retain-from. After every step, each readable snapshot reads exactly
// as recorded, each unreadable one is OUT_OF_RETENTION, and no object a readable snapshot names is gone.
import * as path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Catalog, Reader } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { openCatalog, readAll, tempDir } from '../helpers.js';

type Op =
  | { kind: 'add'; table: number }
  | { kind: 'remove'; pick: number }
  | { kind: 'rename'; table: number }
  | { kind: 'tag'; pick: number }
  | { kind: 'untag'; pick: number }
  | { kind: 'lease'; pick: number }
  | { kind: 'unlease'; pick: number }
  | { kind: 'tick' }
  | { kind: 'advance'; pick: number }
  | { kind: 'excise'; batch: number }
  | { kind: 'reclaim'; grace: boolean };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('add' as const), table: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rename' as const), table: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tag' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('untag' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('lease' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unlease' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('excise' as const), batch: fc.integer({ min: 1, max: 7 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reclaim' as const), grace: fc.boolean() }) },
);

const LEASE_MS = 10_000;

async function run(ops: Op[]): Promise<void> {
  let now = Date.UTC(2026, 0, 1);
  const dir = await tempDir();
  const c: Catalog = await openCatalog({ dir, clock: () => (now += 10) });
  const store = new DirectoryStore(path.join(dir, 'store'));
  const names = ['t0', 't1'];
  let head = 0;
  const recorded = new Map<number, Awaited<ReturnType<typeof readAll>>>();
  const commit = async (fn: Parameters<Catalog['transaction']>[0]) => {
    const { snapshot } = await c.transaction(fn);
    if (snapshot !== null) {
      head = snapshot;
      recorded.set(snapshot, await readAll(c, snapshot));
    }
  };
  recorded.set(0, await readAll(c, 0));
  await commit(async (tx) => {
    for (const n of names) await tx.createTable('main', n, [{ name: 'i', type: 'int32' }]);
  });
  // Model.
  let retainFrom = 0;
  const tags = new Map<string, number>();
  const leases: { reader: Reader; snapshot: number; expiresAt: number }[] = [];
  let files = 0;
  const readable = (s: number) => s >= retainFrom || [...tags.values()].includes(s);

  for (const o of ops) {
    const retained = [...recorded.keys()].filter(readable);
    const pickOf = <T>(xs: T[], n: number) => xs[n % xs.length]!;
    switch (o.kind) {
      case 'add': {
        const p = `f${files++}.parquet`;
        await store.putIfAbsent(`data/${p}`, new Uint8Array([1]));
        await commit((tx) => tx.addDataFile('main', names[o.table]!, { path: p, recordCount: 5, fileSizeBytes: 1 }));
        break;
      }
      case 'remove': {
        const r = await c.reader();
        const live = (await Promise.all(names.map(async (n) => (await r.dataFiles('main', n)).map((f) => [n, f.id] as const)))).flat();
        await r.close();
        if (live.length === 0) break;
        const [table, id] = pickOf(live, o.pick);
        await commit((tx) => tx.removeDataFile('main', table, id));
        break;
      }
      case 'rename': {
        const from = names[o.table]!;
        const to = `${from.split('_')[0]}_${head}`;
        await commit((tx) => tx.renameTable('main', from, to));
        names[o.table] = to;
        break;
      }
      case 'tag': {
        const s = pickOf(retained, o.pick);
        const name = `tag${tags.size}_${s}_${now}`;
        await c.createTag(name, s);
        tags.set(name, s);
        break;
      }
      case 'untag': {
        if (tags.size === 0) break;
        const name = pickOf([...tags.keys()], o.pick);
        await c.dropTag(name);
        tags.delete(name);
        break;
      }
      case 'lease': {
        const s = pickOf(retained, o.pick);
        leases.push({ reader: await c.reader({ snapshot: s, lease: { ttlMs: LEASE_MS } }), snapshot: s, expiresAt: now + LEASE_MS });
        break;
      }
      case 'unlease': {
        if (leases.length === 0) break;
        const [l] = leases.splice(o.pick % leases.length, 1);
        await l!.reader.close();
        break;
      }
      case 'tick':
        now += LEASE_MS / 2;
        break;
      case 'advance': {
        const target = retainFrom + (o.pick % (head - retainFrom + 1));
        const at = now + 10; // the clock reading advanceRetainFrom will take
        const blocking = leases.filter((l) => l.expiresAt > at && l.snapshot >= retainFrom && l.snapshot < target).map((l) => l.snapshot);
        const expected = Math.min(target, ...blocking);
        expect((await c.advanceRetainFrom({ snapshot: target })).retainFrom).toBe(expected);
        retainFrom = expected;
        break;
      }
      case 'excise':
        await c.excise({ batchSize: o.batch });
        break;
      case 'reclaim':
        await c.reclaimFiles({ graceMs: o.grace ? 3_600_000 : 0 });
        break;
    }

    // Every readable snapshot as recorded; every other one refused; no named object gone.
    for (const [s, contents] of recorded) {
      if (!readable(s)) {
        await expect(c.reader({ snapshot: s })).rejects.toMatchObject({ code: 'OUT_OF_RETENTION' });
        continue;
      }
      expect(await readAll(c, s)).toEqual(contents);
      for (const schema of contents.schemas) {
        for (const t of schema.tables) {
          for (const f of [...t.dataFiles, ...t.deleteFiles]) expect(await store.get(`data/${f.path}`), `${f.path} at ${s}`).toBeDefined();
        }
      }
    }
    // Open lease readers keep answering from their views, whatever GC did.
    for (const l of leases) {
      const main = recorded.get(l.snapshot)!.schemas.find((x) => x.schema.name === 'main')!;
      for (const t of main.tables) expect(await l.reader.dataFiles('main', t.table.name)).toEqual(t.dataFiles);
    }
  }
}

describe('GC against a model', () => {
  it('random commits, tags, leases, retain-from moves, excisions and reclamations', { timeout: 240_000 }, async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 35 }), run), { numRuns: 25 });
  });
});
