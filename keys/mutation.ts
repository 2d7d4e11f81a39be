// One change to the keyspace: what a log entry carries and an index batch applies. Families build them;
// nothing else in the code base assembles a key/value pair by hand.
import type { Key } from './key-codec.js';
import { encodeValue } from './value-codec.js';

export type Mutation = { type: 'put'; key: Key; value: Uint8Array } | { type: 'del'; key: Key };

/** A put of `row` under `key`, framed as every stored value is. */
export const putRow = (key: Key, row: unknown): Mutation => ({ type: 'put', key, value: encodeValue(row) });

export const del = (key: Key): Mutation => ({ type: 'del', key });

/**
 * Appends `more` to `out` one by one: a commit can carry hundreds of thousands of mutations, and spreading
 * them into push() passes each as an argument, which overflows the stack.
 */
export function append<T>(out: T[], more: readonly T[]): void {
  for (const m of more) out.push(m);
}
