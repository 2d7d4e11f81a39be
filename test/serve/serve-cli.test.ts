// `strata serve` as a user starts it: a process that prints its URL, answers over HTTP, logs a line per
// request, refuses a token that is not there, and exits 0 on SIGTERM.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { runCli, runCliWith, spawnCli } from '../support/run-cli.js';

/** The output of `child` so far, and the first stdout line that holds an http URL. */
function watch(child: ChildProcess) {
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => {
      stdout += b.toString();
      const m = /http:\/\/[^\s)]+/.exec(stdout);
      if (m !== null) resolve(m[0]);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before printing a URL: ${stdout}${stderr}`)));
  });
  return { url, out: () => stdout, err: () => stderr };
}

describe('strata serve', () => {
  it('prints its URL, answers with the bearer token, logs each request and exits 0 on SIGTERM', async () => {
    const dir = await tempDir();
    expect((await runCli('--dir', dir, 'init')).code).toBe(0);
    expect((await runCli('--dir', dir, 'sql', 'CREATE TABLE t (id INTEGER)')).code).toBe(0);
    expect((await runCli('--dir', dir, 'sql', 'INSERT INTO t VALUES (1), (2)')).code).toBe(0);
    const child = spawnCli({ STRATA_TOKEN: 'open sesame' }, '--dir', dir, 'serve', '--port', '0', '--token-env', 'STRATA_TOKEN');
    try {
      const w = watch(child);
      const url = await w.url;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${url}/v1/namespaces`)).status).toBe(401);
      const res = await fetch(`${url}/v1/namespaces/main/tables/t`, { headers: { authorization: 'Bearer open sesame' } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { metadata: { 'current-snapshot-id': number; snapshots: unknown[] } };
      expect(body.metadata.snapshots).toHaveLength(1);

      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
      expect(w.err().trim().split('\n')).toEqual([expect.stringMatching(/^GET \/v1\/namespaces 401 /), expect.stringMatching(/^GET \/v1\/namespaces\/main\/tables\/t 200 /)]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('exits 0 on a SIGTERM sent the moment it prints its URL, as a service manager may send it', { timeout: 120_000 }, async () => {
    const dir = await tempDir();
    expect((await runCli('--dir', dir, 'init')).code).toBe(0);
    // The listener was installed after the URL was printed: most SIGTERMs sent at once killed the process.
    for (let i = 0; i < 5; i++) {
      const child = spawnCli({}, '--dir', dir, 'serve', '--port', '0');
      let stdout = '';
      child.stdout!.on('data', (b: Buffer) => {
        stdout += b.toString();
        if (stdout.includes('\n')) child.kill('SIGTERM');
      });
      const [code, signal] = await once(child, 'exit');
      expect([i, code, signal, stdout]).toEqual([i, 0, null, expect.stringMatching(/^serving the Iceberg REST catalog at http/)]);
    }
  });

  it('refuses a --token-env that names no variable, and a port out of range, before listening', async () => {
    const dir = await tempDir();
    expect((await runCli('--dir', dir, 'init')).code).toBe(0);
    const missing = await runCliWith({ env: {} }, '--dir', dir, 'serve', '--port', '0', '--token-env', 'STRATA_NO_SUCH_VARIABLE');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--token-env STRATA_NO_SUCH_VARIABLE: that environment variable is not set or empty/);
    const port = await runCli('--dir', dir, 'serve', '--port', '70000');
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port takes 0 \(any free port\) to 65535, got 70000/);
  });
});
