// `run-bundle.ts <bundle> <build id> <cache dir | -> [argument…]`: runs a CommonJS bundle as the `strata`
// launcher does (src/cli/code-cache.ts), and prints on its own last line what became of the cache.
import { runBundle } from '../../src/cli/code-cache.js';

const [file, build, dir] = process.argv.slice(2);
const use = runBundle(file!, build!, dir === '-' ? undefined : dir);
process.stdout.write(`\n${JSON.stringify({ use })}\n`);
