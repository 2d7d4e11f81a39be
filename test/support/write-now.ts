// Writes `bytes` bytes (and a newline) through the CLI's writeNow, once the parent says go on stdin, and
// says on stderr that the call returned.
import { writeNow } from '../../src/cli/output.js';

const bytes = Number(process.argv[2]);
process.stdin.once('data', () => {
  writeNow(`${'x'.repeat(bytes)}\n`);
  process.stderr.write('returned\n');
  process.stdin.destroy();
});
