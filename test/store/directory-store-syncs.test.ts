// What the directory store asks of the disk, read from the system calls themselves (strace): the order of
// fdatasync, link/rename and the directory fsync is the whole durability argument, and no test through the
// API could see it without crashing a machine.
import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { machineHas } from '../support/machine.js';

const child = fileURLToPath(new URL('../fixtures/store-writes-child.ts', import.meta.url));
const nestedChild = fileURLToPath(new URL('./nested-dirs-child.ts', import.meta.url));
const canTrace = machineHas('strace', spawnSync('strace', ['-f', '-o', '/dev/null', 'true']).status === 0, 'install it (.ci/run does: apt-get install strace) and let this process trace its children');

/** How one object got its name: whether the temporary file was fdatasync'd first, and the directory after. */
interface Naming {
  name: string;
  call: 'link' | 'rename';
  dataSynced: boolean;
  dirSynced: boolean;
}

/** What the traced writer did, in order, with paths as the system calls named them. */
type Event = { call: 'mkdir' | 'sync' | 'write'; path: string } | { call: 'link' | 'rename'; from: string; to: string };

/** Runs `script <dir> <durability> …args` under strace: the events, and the directory it was given. */
async function trace(script: string, durability: 'durable' | 'relaxed', ...args: string[]): Promise<{ dir: string; events: Event[] }> {
  const dir = await tempDir();
  const out = path.join(dir, 'trace');
  const calls = 'openat,link,linkat,rename,renameat,renameat2,fdatasync,fsync,mkdir,mkdirat,pwrite64';
  await new Promise<void>((resolve, reject) => {
    const p = spawn('strace', ['-f', '-qq', '-e', `trace=${calls}`, '-o', out, process.execPath, '--import', 'tsx', script, dir, durability, ...args]);
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the traced writer failed (${code}): ${stderr}`))));
  });
  return { dir, events: eventsOf(await readFile(out, 'utf8')) };
}

/** What strace's output (`-f -o`) says the writer did, in order, each descriptor named by the path it was opened on. */
function eventsOf(trace: string): Event[] {
  const fileOf = new Map<string, string>(); // fd → the path it was opened on, for the newest open
  // A call another thread interrupts is two lines (strace -f): `PID openat(…, "path", … <unfinished ...>`, then
  // `PID <... openat resumed>) = FD` — the writer's opens race the files Node's loader opens on libuv's threads.
  const unfinished = new Map<string, string>(); // pid → the path of its open or mkdir under way
  const events: Event[] = [];
  for (const line of trace.split('\n')) {
    const pid = /^(\d+) /.exec(line)?.[1] ?? '';
    const begun = /(openat|mkdir(?:at)?)\((?:AT_FDCWD, )?"([^"]+)".*<unfinished \.\.\.>$/.exec(line);
    if (begun) unfinished.set(pid, begun[2]!);
    const resumed = /<\.\.\. (openat|mkdir(?:at)?) resumed>.*\)\s*=\s*(\d+)/.exec(line);
    if (resumed && unfinished.has(pid)) {
      if (resumed[1] === 'openat') fileOf.set(resumed[2]!, unfinished.get(pid)!);
      else if (resumed[2] === '0') events.push({ call: 'mkdir', path: unfinished.get(pid)! });
      unfinished.delete(pid);
    }
    const open = /openat\(AT_FDCWD, "([^"]+)", [^)]*\)\s+= (\d+)/.exec(line);
    if (open) fileOf.set(open[2]!, open[1]!);
    const sync = /(fdatasync|fsync)\((\d+)/.exec(line);
    const file = sync && fileOf.get(sync[2]!);
    if (file) events.push({ call: 'sync', path: file });
    const wrote = /pwrite64\((\d+)/.exec(line);
    const written = wrote && fileOf.get(wrote[1]!);
    if (written) events.push({ call: 'write', path: written });
    const made = /\bmkdir(?:at)?\((?:AT_FDCWD, )?"([^"]+)", [^)]*\)\s+= 0/.exec(line);
    if (made) events.push({ call: 'mkdir', path: made[1]! });
    const named = /\b(link|rename)\("([^"]+)", "([^"]+)"/.exec(line);
    if (named) events.push({ call: named[1] as 'link' | 'rename', from: named[2]!, to: named[3]! });
  }
  return events;
}

async function traceWrites(durability: 'durable' | 'relaxed'): Promise<Naming[]> {
  const { dir, events } = await trace(child, durability, 'objects');
  const store = path.join(dir, 'store');
  const synced = new Set<string>(); // paths whose data was fdatasync'd
  const namings: Naming[] = [];
  for (const e of events) {
    if (e.call === 'sync') {
      synced.add(e.path);
      // A directory fsync'd after an object got its name there makes that name durable.
      for (const n of namings) if (path.dirname(n.name) === e.path) n.dirSynced = true;
    } else if ((e.call === 'link' || e.call === 'rename') && e.to.startsWith(store)) {
      namings.push({ name: e.to, call: e.call, dataSynced: synced.has(e.from), dirSynced: false });
    }
  }
  return namings.map((n) => ({ ...n, name: path.relative(store, n.name) }));
}

/**
 * For each directory the nested writer made (the store's root among them): whether its parent was fsync'd
 * after it was made and before any name in it, or below it, was made durable.
 */
async function traceNewDirectories(durability: 'durable' | 'relaxed'): Promise<Record<string, boolean>> {
  const { dir, events } = await trace(nestedChild, durability);
  const within = (p: string, d: string) => p === d || p.startsWith(`${d}${path.sep}`);
  const named = new Set<string>(); // directories an object has got its name in so far
  const nameDurable = new Set<number>(); // the directory syncs that made a name durable
  events.forEach((e, i) => {
    if (e.call === 'link' || e.call === 'rename') named.add(path.dirname(e.to));
    else if (e.call === 'sync' && named.has(e.path)) nameDurable.add(i);
  });
  const parentSynced: Record<string, boolean> = {};
  events.forEach((e, madeAt) => {
    if (e.call !== 'mkdir' || !within(e.path, dir)) return;
    const by = events.findIndex((s, i) => nameDurable.has(i) && s.call === 'sync' && within(s.path, e.path));
    parentSynced[path.relative(dir, e.path)] = events.some(
      (s, i) => i > madeAt && (by < 0 || i < by) && s.call === 'sync' && s.path === path.dirname(e.path),
    );
  });
  return parentSynced;
}

describe('the trace parser', () => {
  it('names a descriptor whose open strace split in two (another thread ran between): the sync is of that file', () => {
    const trace = [
      '3442  openat(AT_FDCWD, "/s/store/.tmp-1", O_WRONLY|O_CREAT|O_EXCL|O_TRUNC|O_CLOEXEC, 0666 <unfinished ...>',
      '3453  openat(AT_FDCWD, "/node/module.js", O_RDONLY|O_CLOEXEC) = 19',
      '3442  <... openat resumed>)             = 20',
      '3451  fdatasync(20)                     = 0',
      '3442  link("/s/store/.tmp-1", "/s/store/log-layout" <unfinished ...>',
      '3442  <... link resumed>)               = 0',
    ].join('\n');
    expect(eventsOf(trace)).toEqual([
      { call: 'sync', path: '/s/store/.tmp-1' },
      { call: 'link', from: '/s/store/.tmp-1', to: '/s/store/log-layout' },
    ]);
  });
});

describe.skipIf(!canTrace)('DirectoryStore system calls (strace)', () => {
  it('durable: every object is fdatasync\'d before it gets its name, and its directory fsync\'d after', { timeout: 60_000 }, async () => {
    const namings = await traceWrites('durable');
    expect(namings.map((n) => `${n.call} ${n.name}`)).toEqual([
      'link log-layout',
      'link log/00000000000000000001',
      'link log/00000000000000000002',
      'link log/00000000000000000003',
      'link other/x',
      'rename other/x',
    ]);
    for (const n of namings) expect(n, n.name).toMatchObject({ dataSynced: true, dirSynced: true });
  });

  it('relaxed: the data is still synced before the name (a crash must not keep an empty object), the directory is not', { timeout: 60_000 }, async () => {
    const namings = await traceWrites('relaxed');
    expect(namings).toHaveLength(6);
    for (const n of namings) expect(n, n.name).toMatchObject({ dataSynced: true, dirSynced: false });
  });

  it('durable: a new directory\'s parent is fsync\'d before a name inside it is made durable, for every level mkdir made', { timeout: 60_000 }, async () => {
    expect(await traceNewDirectories('durable')).toEqual({ store: true, 'store/a': true, 'store/a/b': true, 'store/a/b/c': true, 'store/a/d': true });
  });

  it('relaxed: new directories\' parents are not fsync\'d, like the directory of a name', { timeout: 60_000 }, async () => {
    expect(await traceNewDirectories('relaxed')).toEqual({ store: false, 'store/a': false, 'store/a/b': false, 'store/a/b/c': false, 'store/a/d': false });
  });

  it('segments, durable: each commit is an unsynced pwrite of the lock file, one pwrite and one fdatasync of the tail segment and another unsynced pwrite of the lock file, nothing named, no directory synced', { timeout: 60_000 }, async () => {
    const commits = 20;
    const { dir, events } = await trace(child, 'durable', 'segments', String(commits));
    const store = path.join(dir, 'store');
    const rel = (p: string) => path.relative(store, p);
    const tail = path.join(store, 'segments', '00000000000000000002.seg');
    // Entry 1 has a segment of its own, entry 2 (the claim of ids) begins the second: both written whole,
    // synced, then linked and their directory synced.
    const rolled = events.findIndex((e) => e.call === 'link' && e.to === tail);
    expect(rolled).toBeGreaterThan(0);
    const end = events.findIndex((e) => e.call === 'mkdir' && e.path === path.join(store, 'other')); // the object after the catalog
    // The lock's generation moves once more after the link (a write to LOCK).
    const lock = path.join(store, 'segments', 'LOCK');
    const after = events.slice(rolled + 1, end).filter((e) => ('path' in e ? e.path.startsWith(store) : e.to.startsWith(store)));
    expect(after[0]).toEqual({ call: 'write', path: lock });
    const commitPath = after.slice(1);
    // The directory sync that makes the second segment's name durable and the lock let go, then the commits,
    // each announced in the lock file before its record is written and the lock let go after it (neither
    // synced: see segment-lock.ts), over space the segment was written with ahead of its records (no write of
    // zeros among them).
    expect(commitPath.slice(0, 2)).toEqual([
      { call: 'sync', path: path.join(store, 'segments') },
      { call: 'write', path: lock },
    ]);
    const perCommit = commitPath.slice(2).map((e) => `${e.call} ${'path' in e ? rel(e.path) : rel(e.to)}`);
    const oneCommit = ['write segments/LOCK', 'write segments/00000000000000000002.seg', 'sync segments/00000000000000000002.seg', 'write segments/LOCK'];
    expect(perCommit).toEqual(Array.from({ length: commits }, () => oneCommit).flat());
  });
});
