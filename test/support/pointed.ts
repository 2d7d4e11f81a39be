// What an error about a statement must look like (docs/DESIGN.md §8.1, "Never a different answer"): the
// statement as the caller wrote it, a caret under the name it is about, and nothing of the catalog's
// rewrite — no scan of local files, no placeholder, no path of the catalog's directory.
import { expect } from 'vitest';
import { isStrataError } from '../../src/index.js';

/**
 * `p` fails with INVALID_ARGUMENT about `name` in `statement` (one line), pointing at `reference` (where the
 * name is used: `o.amout` for a qualified one; default the name itself).
 */
export async function expectPointedAt(p: Promise<unknown>, statement: string, name: string, dir: string, reference = name): Promise<void> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(isStrataError(e, 'INVALID_ARGUMENT'), String(e)).toBe(true);
  const message = (e as Error).message;
  expect(message).toContain(`"${name}"`);
  const prefix = 'LINE 1: ';
  expect(message).toContain(`${prefix}${statement}\n${' '.repeat(prefix.length + statement.indexOf(reference))}^`);
  for (const internal of ['read_parquet', '__strata', dir, 'd."']) expect(message).not.toContain(internal);
}
