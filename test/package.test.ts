// The package as a stranger gets it: `npm pack` (which builds dist/ first), the tarball installed into an
// empty project, `npx strata` working there, and a TypeScript file importing `stratalake` that type-checks
// against the shipped declarations (and fails to when it misuses them) and runs.
import { execFile, spawn } from 'node:child_process';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const exec = promisify(execFile);
const tsc = path.join(root, 'node_modules', '.bin', 'tsc');

async function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(cmd, args, { cwd, env, timeout: 600_000, maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** What a long-running command prints before it is stopped (SIGTERM, as a service manager stops it). */
function served(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) p.kill('SIGTERM');
    });
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 && out !== '' ? resolve(out) : reject(new Error(`${args.join(' ')}: exit ${code}: ${err}`))));
  });
}

const USE = `import { Catalog, StrataError, type SnapshotId } from 'stratalake';
const c = await Catalog.open({ dir: process.argv[2]! });
const { snapshot } = await c.transaction(async (tx) => {
  await tx.createTable('main', 'events', [{ name: 'id', type: 'int64' }]);
});
const s: SnapshotId | null = snapshot;
const r = await c.reader();
console.log(JSON.stringify({ snapshot: s, tables: (await r.tables('main')).map((t) => t.name), error: StrataError.name }));
await r.close();
await c.close();
`;

// A misuse the declarations must refuse: an option that does not exist.
const MISUSE = `import { Catalog } from 'stratalake';
await Catalog.open({ dri: './lake' });
`;

describe('the package, installed by its name', () => {
  it('npm pack, npm install <tarball> into an empty project: npx strata --version and init, and a typed import of stratalake', { timeout: 900_000 }, async () => {
    const dir = await tempDir();
    const packed = await run('npm', ['pack', '--silent', '--pack-destination', dir], root);
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'))!;
    expect(tarball).toMatch(/^stratalake-\d+\.\d+\.\d+\.tgz$/);

    const project = path.join(dir, 'project');
    await run('mkdir', [project], dir);
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'uses-stratalake', version: '1.0.0', type: 'module', private: true }));
    const installed = await run('npm', ['install', '--no-audit', '--no-fund', path.join(dir, tarball)], project);
    expect(installed.code, installed.stderr).toBe(0);

    // The command keeps V8's code cache for this user (decision 0053): here, in a directory of the test's.
    const cache = path.join(dir, 'cache');
    const env = { ...process.env, XDG_CACHE_HOME: cache };
    const version = await run('npx', ['--no-install', 'strata', '--version'], project, env);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const init = await run('npx', ['--no-install', 'strata', 'init', '--dir', './lake'], project, env);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('catalog ready');
    expect((await run('npx', ['--no-install', 'stratalake', 'snapshots', '--dir', './lake'], project, env)).code).toBe(0);
    const notes = (await readdir(path.join(cache, 'stratalake'))).filter((f) => f.endsWith('.json'));
    expect(notes.length).toBe(1);
    const note = path.join(cache, 'stratalake', notes[0]!);
    expect(JSON.parse(await readFile(note, 'utf8')).commands).toEqual(['init', 'snapshots']);
    const taken = (await stat(note.replace(/\.json$/, '.v8'))).mtimeMs;
    const again = await run('npx', ['--no-install', 'stratalake', 'snapshots', '--dir', './lake'], project, env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('created schema "main"');
    expect((await stat(note.replace(/\.json$/, '.v8'))).mtimeMs).toBe(taken);

    // What only some commands load still loads from the bundle: fastify for serve, the AWS SDK for s3://.
    const bin = path.join(project, 'node_modules', 'stratalake', 'dist', 'src', 'cli', 'strata.cjs');
    // And a call that reads loads none of what it does not need: node:crypto (nothing named at random or
    // hashed), node:child_process (no child), a stream over standard output (net, for a pipe), perf_hooks (no
    // store clock read), fs-ext (no lock taken), msgpackr's native extractor.
    const probe = path.join(dir, 'loaded.cjs');
    await writeFile(
      probe,
      "process.on('exit', () => require('node:fs').writeSync(2, JSON.stringify([...process.moduleLoadList.filter((m) => /^NativeModule (crypto|child_process|net|perf_hooks)$/.test(m)), ...Object.keys(require.cache).filter((f) => /msgpackr-extract|detect-libc|fs-ext/.test(f))])));",
    );
    const reading = await run(process.execPath, ['--require', probe, bin, 'info', '--dir', './lake'], project, env);
    expect(reading.code, reading.stderr).toBe(0);
    expect(reading.stdout).toMatch(/^schemas, tables, views +1, 0, 0$/m);
    expect(JSON.parse(reading.stderr)).toEqual([]);
    // The command's bundled copy of DuckDB's Node API keeps a leading byte-order mark in text, as the library does.
    const marked = await run(process.execPath, [bin, 'sql', '--dir', './lake', '--csv', "SELECT chr(65279) || 'abc' AS s"], project, env);
    expect(marked.code, marked.stderr).toBe(0);
    expect(marked.stdout).toBe('s\n\uFEFFabc\n');
    // And so does its bundled msgpackr, which decodes a stored string of over 64 bytes with a TextDecoder
    // (the command loads no native extractor): a commit's message reads back as it was given.
    const message = `\uFEFF${'m'.repeat(80)}`;
    const made = await run(process.execPath, [bin, 'sql', '--dir', './lake', '--message', message, 'CREATE TABLE marked (i INT)'], project, env);
    expect(made.code, made.stderr).toBe(0);
    const listed = await run(process.execPath, [bin, 'snapshots', '--dir', './lake', '--json'], project, env);
    expect((JSON.parse(listed.stdout) as { message: string | null }[]).map((s) => s.message)).toContain(message);
    expect(await served(bin, ['serve', '--dir', './lake', '--port', '0'], project, env)).toMatch(/^serving the Iceberg REST catalog at http:\/\/127\.0\.0\.1:\d+/);
    const s3Env = { ...env, AWS_ACCESS_KEY_ID: 'key', AWS_SECRET_ACCESS_KEY: 'secret' };
    const s3 = await run(process.execPath, [bin, 'info', '--dir', './s3', '--store', 's3://bucket/lake', '--endpoint', 'http://127.0.0.1:9', '--path-style'], project, s3Env);
    expect(s3.code).toBe(1);
    expect(s3.stderr).toMatch(/STORE_UNAVAILABLE.*ECONNREFUSED/);
    // The bundle runs strict, as the modules it is built from do: its first statement is the directive.
    const opening = (await readFile(bin.replace(/strata\.cjs$/, 'strata-command.cjs'), 'utf8')).replace(/^#!.*\n/, '').split('\n')[0];
    expect(opening).toBe("'use strict';");
    // The command is one bundled file: an index left unsealed is checked by the child process bundled beside
    // it, and kept (a child that could not start would count as damage, and the index would be rebuilt).
    await rm(path.join(project, 'lake', 'index', 'STRATA-SEAL'));
    await writeFile(path.join(project, 'lake', 'index', 'KEPT'), '');
    const unsealed = await run('npx', ['--no-install', 'strata', 'info', '--dir', './lake'], project);
    expect(unsealed.code, unsealed.stderr).toBe(0);
    expect(await readdir(path.join(project, 'lake', 'index'))).toContain('KEPT');

    // Type-checked with the library checks on (skipLibCheck off), Node's types from this repository.
    const compilerOptions = { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, outDir: 'out', skipLibCheck: false, typeRoots: [path.join(root, 'node_modules', '@types')], types: ['node'] };
    await writeFile(path.join(project, 'use.ts'), USE);
    await writeFile(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['use.ts'] }));
    const checked = await run(tsc, ['-p', '.'], project);
    expect(checked.code, checked.stdout).toBe(0);
    const ran = await run(process.execPath, ['out/use.js', './lake2'], project);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ snapshot: 1, tables: ['events'], error: 'StrataError' });

    await writeFile(path.join(project, 'misuse.ts'), MISUSE);
    await writeFile(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...compilerOptions, noEmit: true }, files: ['misuse.ts'] }));
    const refused = await run(tsc, ['-p', '.'], project);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toMatch(/'dri' does not exist/);
  });
});
