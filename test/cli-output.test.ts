// A command's one text goes to standard output's descriptor itself (src/cli/output.ts, writeNow): whole and in
// order however little the output takes at once, and quietly nowhere once the reader has gone, as console.log
// did — help and the version too.
import { spawn, type StdioOptions } from 'node:child_process';
import { once } from 'node:events';
import { createConnection, createServer, type Socket } from 'node:net';
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { spawnCli } from './support/run-cli.js';

const script = fileURLToPath(new URL('./support/write-now.ts', import.meta.url));
const BYTES = 4 << 20;

/**
 * The child, its calls' returns counted as they come, and its exit code. Not its output's end: tsx starts an
 * esbuild service that inherits the child's descriptors, and what waits for them to close waits for it too
 * (a CI run timed out so). A failure of writeNow is an uncaught error, which exits 1.
 */
function child(out: 'pipe' | Socket) {
  const shared = out !== 'pipe';
  const stdio: StdioOptions = ['pipe', out, 'pipe', 'pipe', ...(shared ? [out] : [])];
  const p = spawn(process.execPath, ['--import', 'tsx', script, String(BYTES), shared ? 'shared' : ''], { stdio });
  const signals = p.stdio[3] as Readable;
  let returned = 0;
  let stderr = '';
  p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const waiters: (() => void)[] = [];
  signals.on('data', (d: Buffer) => {
    returned += d.toString().split('\n').length - 1;
    waiters.splice(0).forEach((w) => w());
  });
  const exited = once(p, 'exit').then(([code]) => code as number);
  /** Resolves once `n` calls have returned; fails if the child ends first. */
  const hasReturned = (n: number) =>
    Promise.race([
      new Promise<void>(function check(resolve) {
        if (returned >= n) resolve();
        else waiters.push(() => check(resolve));
      }),
      exited.then((code) => Promise.reject(new Error(`the child exited (${code}) after ${returned} calls: ${stderr}`))),
    ]);
  return { p, go: () => (p.stdin as Writable).write('go\n'), hasReturned, exited };
}

/** A connected pair of sockets over a Unix socket file in a temporary directory. */
async function socketPair(): Promise<{ writer: Socket; reader: Socket; close: () => void }> {
  const server = createServer();
  server.listen(path.join(await tempDir(), 'out.sock'));
  await once(server, 'listening');
  const accepted = once(server, 'connection');
  const writer = createConnection(server.address() as string);
  await once(writer, 'connect');
  const [reader] = (await accepted) as [Socket];
  return { writer, reader, close: () => server.close() };
}

describe('writeNow', () => {
  it('writes whole and in order to an output that takes less at once than it is given (2>&1 made it non-blocking), the rest as the reader reads, and each text after the one before', { timeout: 60_000 }, async () => {
    const { writer, reader, close } = await socketPair();
    reader.pause();
    const c = child(writer);
    writer.destroy();
    let got = '';
    let whole!: () => void;
    const arrived = new Promise<void>((resolve) => (whole = resolve));
    reader.setEncoding('latin1');
    reader.on('data', (d: string) => {
      got += d;
      if (got.length >= BYTES + 5) whole();
    });
    c.go();
    // Nothing is read until the first call returned: the socket holds a fraction of 4 MiB. Then the reader
    // makes room while the child waits, and the second text is written: after the first, never into it.
    await c.hasReturned(1);
    reader.resume();
    await c.hasReturned(2);
    expect(await c.exited).toBe(0);
    await arrived;
    reader.destroy();
    close();
    expect(got.length).toBe(BYTES + 5);
    expect(got.indexOf('END')).toBe(BYTES + 1);
  });

  it('fails nothing once the reader has closed the output', { timeout: 60_000 }, async () => {
    const c = child('pipe');
    c.p.stdout!.destroy();
    c.go();
    await c.hasReturned(2);
    expect(await c.exited).toBe(0);
  });
});

describe('help and the version', () => {
  it('end quietly, exit 0, when the reader has gone (strata --version | true)', { timeout: 60_000 }, async () => {
    for (const args of [['--version'], ['--help'], ['--json', '--version']]) {
      const p = spawnCli({}, ...args);
      p.stdout!.destroy();
      // An EPIPE not handled is INTERNAL, exit 1 (main.ts).
      const [code] = await once(p, 'exit');
      expect({ args, code }).toEqual({ args, code: 0 });
    }
  });
});
