// Writes through the CLI's writeNow once the parent says go on stdin: `bytes` bytes of 'x' and a newline, then,
// half a second later in the same turn of the event loop (nothing queued on process.stdout can move meanwhile),
// "END\n". With `shared`, standard error is the same descriptor as standard output (`2>&1`) and this process
// writes there first, as a command that reports progress does: Node then makes that descriptor non-blocking.
// After each call it says so on descriptor 3.
import { writeSync } from 'node:fs';
import { writeNow } from '../../src/cli/output.js';

const [bytes, shared] = [Number(process.argv[2]), process.argv[3] === 'shared'];
if (shared) process.stderr.write('');
process.stdin.once('data', () => {
  writeNow(`${'x'.repeat(bytes)}\n`);
  writeSync(3, 'returned\n');
  const until = Date.now() + 500;
  while (Date.now() < until);
  writeNow('END\n');
  writeSync(3, 'returned\n');
  process.stdin.destroy();
});
