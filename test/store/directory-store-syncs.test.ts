// What the directory store asks of the disk, read from the system calls themselves (strace): the order of
// fdatasync, link/rename and the directory fsync is the whole durability argument, and no test through the
// API could see it without crashing a machine.
import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

const child = fileURLToPath(new URL('../fixtures/store-writes-child.ts', import.meta.url));
const canTrace = spawnSync('strace', ['-f', '-o', '/dev/null', 'true']).status === 0;

/** How one object got its name: whether the temporary file was fdatasync'd first, and the directory after. */
interface Naming {
  name: string;
  call: 'link' | 'rename';
  dataSynced: boolean;
  dirSynced: boolean;
}

async function traceWrites(durability: 'durable' | 'relaxed'): Promise<Naming[]> {
  const dir = await tempDir();
  const out = path.join(dir, 'trace');
  const calls = 'openat,link,linkat,rename,renameat,renameat2,fdatasync,fsync';
  await new Promise<void>((resolve, reject) => {
    const p = spawn('strace', ['-f', '-qq', '-e', `trace=${calls}`, '-o', out, process.execPath, '--import', 'tsx', child, dir, durability]);
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the traced writer failed (${code}): ${stderr}`))));
  });
  const store = path.join(dir, 'store');
  const fileOf = new Map<string, string>(); // fd → the path it was opened on, for the newest open
  const synced = new Set<string>(); // paths whose data was fdatasync'd
  const namings: Naming[] = [];
  for (const line of (await readFile(out, 'utf8')).split('\n')) {
    const open = /openat\(AT_FDCWD, "([^"]+)", [^)]*\) = (\d+)/.exec(line);
    if (open && open[1]!.startsWith(store)) fileOf.set(open[2]!, open[1]!);
    const sync = /(fdatasync|fsync)\((\d+)/.exec(line);
    const file = sync && fileOf.get(sync[2]!);
    if (file) {
      synced.add(file);
      // A directory fsync'd after an object got its name there makes that name durable.
      for (const n of namings) if (path.dirname(n.name) === file) n.dirSynced = true;
    }
    const named = /\b(link|rename)\("([^"]+)", "([^"]+)"/.exec(line);
    if (named && named[3]!.startsWith(store)) {
      namings.push({ name: named[3]!, call: named[1] as Naming['call'], dataSynced: synced.has(named[2]!), dirSynced: false });
    }
  }
  return namings.map((n) => ({ ...n, name: path.relative(store, n.name) }));
}

describe.skipIf(!canTrace)('DirectoryStore system calls (strace)', () => {
  it('durable: every object is fdatasync\'d before it gets its name, and its directory fsync\'d after', { timeout: 60_000 }, async () => {
    const namings = await traceWrites('durable');
    expect(namings.map((n) => `${n.call} ${n.name}`)).toEqual([
      'link log/00000000000000000001',
      'link log/00000000000000000002',
      'link other/x',
      'rename other/x',
    ]);
    for (const n of namings) expect(n, n.name).toMatchObject({ dataSynced: true, dirSynced: true });
  });

  it('relaxed: the data is still synced before the name (a crash must not keep an empty object), the directory is not', { timeout: 60_000 }, async () => {
    const namings = await traceWrites('relaxed');
    expect(namings).toHaveLength(4);
    for (const n of namings) expect(n, n.name).toMatchObject({ dataSynced: true, dirSynced: false });
  });
});
