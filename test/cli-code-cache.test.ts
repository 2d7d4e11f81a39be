// The `strata` launcher runs the command's bundle from V8's code cache (src/cli/code-cache.ts, decision 0053):
// written by the first call and by a call of a command it was not taken after, used by the rest, never handed
// to V8 when it fails its checksum, taken again when V8 refuses it, and kept only where one user alone can
// write. Each call is a process, as each CLI call is; the bundle here is a small one of the test's own.
import { chmod, lstat, readFile, rename, stat, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { userCacheDir } from '../src/cli/code-cache.js';
import { runTsx, tempDir } from './helpers.js';

const driver = new URL('./support/run-bundle.ts', import.meta.url);

/** A CommonJS bundle that says which command ran and does some work in functions of its own. */
const BUNDLE = `#!/usr/bin/env node
const words = { one: (n) => 'one'.repeat(n), two: (n) => [...Array(n).keys()].map((i) => i * 2).join(',') };
const command = process.argv[5];
exports.ran = { command };
console.log(JSON.stringify({ command, said: words[command](3), dir: __dirname === require('node:path').dirname(__filename) }));
`;

/** The bundle `source` written to a file of its own, and an empty directory for its cache. */
async function setUp(source = BUNDLE): Promise<{ bundle: string; dir: string }> {
  const bundle = path.join(await tempDir(), 'bundle.cjs');
  await writeFile(bundle, source);
  return { bundle, dir: await tempDir() };
}

async function call(bundle: string, build: string, dir: string, command: string) {
  const { stdout } = await runTsx(driver, [bundle, build, dir, command]);
  const [said, use] = stdout.split('\n').filter((l) => l !== '');
  return { said: JSON.parse(said!) as { command: string; said: string; dir: boolean }, use: (JSON.parse(use!) as { use: string }).use };
}

async function note(dir: string, build: string) {
  const file = path.join(dir, `${build}-node${process.versions.node}-${process.arch}`);
  return { ...(JSON.parse(await readFile(`${file}.json`, 'utf8')) as { crc: number; commands: string[] }), v8: `${file}.v8` };
}

describe('the command run from its code cache', () => {
  it('is written by the first call and by each command not seen, used by the others, and changes nothing a call does', { timeout: 120_000 }, async () => {
    const { bundle, dir } = await setUp();
    const first = await call(bundle, 'b1', dir, 'one');
    expect(first).toEqual({ said: { command: 'one', said: 'oneoneone', dir: true }, use: 'none' });
    expect((await note(dir, 'b1')).commands).toEqual(['one']);
    const written = (await stat((await note(dir, 'b1')).v8)).mtimeMs;

    expect(await call(bundle, 'b1', dir, 'one')).toEqual({ ...first, use: 'used' });
    expect((await stat((await note(dir, 'b1')).v8)).mtimeMs).toBe(written);

    const second = await call(bundle, 'b1', dir, 'two');
    expect(second).toEqual({ said: { command: 'two', said: '0,2,4', dir: true }, use: 'used' });
    expect((await note(dir, 'b1')).commands).toEqual(['one', 'two']);

    // Without a directory for it, the bundle runs all the same.
    expect(await call(bundle, 'b1', '-', 'two')).toEqual({ ...second, use: 'none' });
  });

  it('one that fails its checksum, or was made from another source, is not handed to V8; one V8 refuses is taken again', { timeout: 120_000 }, async () => {
    const { bundle, dir } = await setUp();
    await call(bundle, 'b1', dir, 'one');
    await call(bundle, 'b1', dir, 'two');
    const { v8 } = await note(dir, 'b1');
    const bytes = await readFile(v8);
    for (const at of [0, bytes.length >> 1, bytes.length - 1]) {
      const damaged = Buffer.from(bytes);
      damaged[at]! ^= 0x10;
      await writeFile(v8, damaged);
      expect(await call(bundle, 'b1', dir, 'one')).toEqual({ said: { command: 'one', said: 'oneoneone', dir: true }, use: 'damaged' });
      // Taken again from this call alone: what the damaged one said it held is not trusted.
      expect((await note(dir, 'b1')).commands).toEqual(['one']);
      expect((await call(bundle, 'b1', dir, 'one')).use).toBe('used');
    }

    // The bundle changed in place, to a source of the same length, with the same build's name: V8 would run
    // the code of the old one (it checks a cache against the source's length alone).
    await writeFile(bundle, BUNDLE.replace("'one'.repeat(n)", "'ONE'.repeat(n)"));
    expect(await call(bundle, 'b1', dir, 'one')).toEqual({ said: { command: 'one', said: 'ONEONEONE', dir: true }, use: 'stale' });
    expect((await note(dir, 'b1')).commands).toEqual(['one']);
    expect(await call(bundle, 'b1', dir, 'one')).toEqual({ said: { command: 'one', said: 'ONEONEONE', dir: true }, use: 'used' });

    // A cache V8 did not make (another V8, other flags): refused by V8 itself, and taken again.
    const { v8: file } = await note(dir, 'b1');
    const foreign = Buffer.alloc((await readFile(file)).length, 7);
    await writeFile(file, foreign);
    await writeFile(file.replace(/\.v8$/, '.json'), JSON.stringify({ ...(await note(dir, 'b1')), crc: crc32(foreign), v8: undefined }));
    expect((await call(bundle, 'b1', dir, 'two')).use).toBe('refused');
    expect((await note(dir, 'b1')).commands).toEqual(['two']);
    expect((await call(bundle, 'b1', dir, 'two')).use).toBe('used');
  });

  it('is kept only in a directory no one else can write, made only where no one else can write, and not at all when Node is told not to', async () => {
    const home = await tempDir();
    expect(userCacheDir({ XDG_CACHE_HOME: home })).toBe(path.join(home, 'stratalake'));
    expect((await stat(path.join(home, 'stratalake'))).mode & 0o077).toBe(0);
    await chmod(path.join(home, 'stratalake'), 0o777);
    expect(userCacheDir({ XDG_CACHE_HOME: home })).toBeUndefined();
    await chmod(path.join(home, 'stratalake'), 0o755);
    expect(userCacheDir({ XDG_CACHE_HOME: home })).toBe(path.join(home, 'stratalake'));
    // A base others can write: they could swap the directory under it.
    await chmod(home, 0o777);
    expect(userCacheDir({ XDG_CACHE_HOME: home })).toBeUndefined();
    await chmod(home, 0o700);
    // A directory in its place that is a link, wherever it leads.
    const elsewhere = await tempDir();
    const linked = await tempDir();
    await symlink(elsewhere, path.join(linked, 'stratalake'));
    expect(userCacheDir({ XDG_CACHE_HOME: linked })).toBeUndefined();
    // A base that is not there is made only inside a directory of this user's alone (root with a user's HOME
    // would make a ~/.cache that user cannot write).
    const made = path.join(home, 'made');
    expect(userCacheDir({ XDG_CACHE_HOME: made })).toBe(path.join(made, 'stratalake'));
    expect((await stat(made)).mode & 0o077).toBe(0);
    expect(userCacheDir({ XDG_CACHE_HOME: path.join(home, 'not', 'there') })).toBeUndefined();
    expect(await stat(path.join(home, 'not')).catch(() => 'absent')).toBe('absent');
    const open = await tempDir();
    await chmod(open, 0o777);
    expect(userCacheDir({ XDG_CACHE_HOME: path.join(open, 'cache') })).toBeUndefined();
    expect(await stat(path.join(open, 'cache')).catch(() => 'absent')).toBe('absent');
    expect(userCacheDir({ XDG_CACHE_HOME: 'relative/cache' })).toBeUndefined();
    expect(userCacheDir({ XDG_CACHE_HOME: home, NODE_DISABLE_COMPILE_CACHE: '1' })).toBeUndefined();
    await writeFile(path.join(home, 'x'), '');
    expect(userCacheDir({ XDG_CACHE_HOME: path.join(home, 'x') })).toBeUndefined();
    // No home at all (a uid with no passwd entry and no HOME: os.homedir() throws).
    const noHome = () => {
      throw new Error('uv_os_homedir returned ENOENT');
    };
    expect(userCacheDir({}, noHome)).toBeUndefined();
  });

  it('uses no file of it that is a link or that others can write, and replaces a link without writing through it', { timeout: 120_000 }, async () => {
    const { bundle, dir } = await setUp();
    await call(bundle, 'b1', dir, 'one');
    const { v8 } = await note(dir, 'b1');
    const target = path.join(await tempDir(), 'kept.v8');
    await rename(v8, target);
    const kept = await readFile(target);
    await symlink(target, v8);
    expect((await call(bundle, 'b1', dir, 'one')).use).toBe('damaged');
    expect((await lstat(v8)).isSymbolicLink()).toBe(false);
    expect(await readFile(target)).toEqual(kept);
    expect((await call(bundle, 'b1', dir, 'one')).use).toBe('used');
    await chmod(v8, 0o666);
    expect((await call(bundle, 'b1', dir, 'one')).use).toBe('damaged');
    expect((await call(bundle, 'b1', dir, 'one')).use).toBe('used');
  });

  it('does not count a command whose call failed as seen', { timeout: 120_000 }, async () => {
    const { bundle, dir } = await setUp(BUNDLE.replace("exports.ran = { command };", "exports.ran = { command };\nif (command === 'two') process.exitCode = 3;"));
    await call(bundle, 'b1', dir, 'one');
    await runTsx(driver, [bundle, 'b1', dir, 'two']).catch(() => undefined);
    expect((await note(dir, 'b1')).commands).toEqual(['one']);
  });
});
