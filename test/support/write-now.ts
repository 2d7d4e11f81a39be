// Writes through the CLI's writeNow once the parent says go on stdin: `bytes` bytes of 'x' and a newline, then,
// half a second later in the same turn of the event loop (nothing queued on process.stdout can move meanwhile),
// "END\n". After each call it says so on descriptor 3.
//
// With `shared`, descriptor 4 is another descriptor of standard output's file, as standard error is with `2>&1`,
// and this process opens a stream on it, as a command that reports progress does on standard error: Node makes
// that file non-blocking, and so standard output too. Not standard error itself: tsx's esbuild service inherits
// it, and Go puts an inherited descriptor it asks about back into blocking mode (a cold tsx cache starts that
// service after this process made the file non-blocking, and the first write then waited for a reader that waits
// for it).
import { readFileSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { writeNow } from '../../src/cli/output.js';

const [bytes, shared] = [Number(process.argv[2]), process.argv[3] === 'shared'];
if (shared) {
  new Socket({ fd: 4, readable: false, writable: true }).unref();
  const flags = /flags:\s*([0-7]+)/.exec(readFileSync('/proc/self/fdinfo/1', 'utf8'))![1]!;
  const O_NONBLOCK = 0o4000;
  if ((parseInt(flags, 8) & O_NONBLOCK) === 0) throw new Error(`standard output is blocking (flags ${flags}): the test would wait for itself`);
}
process.stdin.once('data', () => {
  writeNow(`${'x'.repeat(bytes)}\n`);
  writeSync(3, 'returned\n');
  const until = Date.now() + 500;
  while (Date.now() < until);
  writeNow('END\n');
  writeSync(3, 'returned\n');
  process.stdin.destroy();
});
