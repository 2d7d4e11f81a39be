// A command's one text goes to standard output's descriptor itself (src/cli/output.ts, writeNow): whole
// however little the output takes at once, and quietly nowhere once the reader has gone, as console.log did.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createConnection, createServer, type Socket } from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const script = fileURLToPath(new URL('./support/write-now.ts', import.meta.url));
const BYTES = 4 << 20;

function child(stdout: 'pipe' | Socket) {
  const p = spawn(process.execPath, ['--import', 'tsx', script, String(BYTES)], { stdio: ['pipe', stdout, 'pipe'] });
  let stderr = '';
  p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(p, 'close').then(([code]) => ({ code: code as number, stderr }));
  return { p, exited, returned: new Promise<void>((resolve) => p.stderr!.on('data', () => stderr.includes('returned') && resolve())) };
}

describe('writeNow', () => {
  it('writes the whole text to an output that takes less than all of it at once (a non-blocking socket), the rest once the reader reads', { timeout: 60_000 }, async () => {
    // The child's descriptor shares this process's non-blocking socket: a write past what the socket holds
    // fails with EAGAIN there instead of waiting.
    const sock = path.join(await tempDir(), 'out.sock');
    const server = createServer();
    server.listen(sock);
    await once(server, 'listening');
    const accepted = once(server, 'connection');
    const client = createConnection(sock);
    await once(client, 'connect');
    const [reader] = (await accepted) as [Socket];
    reader.pause();
    const { p, exited, returned } = child(client);
    p.stdin!.write('go\n');
    // Nothing is read until the call returned: the socket holds a fraction of 4 MiB.
    await Promise.race([returned, exited.then((r) => Promise.reject(new Error(`the child ended before writeNow returned: ${JSON.stringify(r)}`)))]);
    client.destroy();
    let got = 0;
    reader.on('data', (d: Buffer) => (got += d.length));
    const ended = once(reader, 'end');
    reader.resume();
    const { code, stderr } = await exited;
    await ended;
    server.close();
    expect({ code, stderr }).toEqual({ code: 0, stderr: 'returned\n' });
    expect(got).toBe(BYTES + 1);
  });

  it('says nothing and fails nothing once the reader has closed the output', { timeout: 60_000 }, async () => {
    const { p, exited } = child('pipe');
    p.stdout!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    p.stdin!.write('go\n');
    expect(await exited).toEqual({ code: 0, stderr: 'returned\n' });
  });
});
