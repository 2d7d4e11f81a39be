// How the Iceberg objects Strata writes are named so that a name says what the bytes are: manifests, lists
// and delete copies by a checksum in the name (src/store/checksummed-names.ts), metadata files
// `<at>-<horizon>-<hash of the text>.metadata.json`. `verify` reads each object and checks it against its name (checkIcebergObjects).
import { ICEBERG_PREFIX } from '../commit/open.js';
import { checksumProblem } from '../store/checksummed-names.js';
import { nodeCrypto } from '../on-first-use.js';
import type { ObjectStore } from '../store/object-store.js';

const METADATA = /\/metadata\/\d+-\d+-([0-9a-f]{16})\.metadata\.json$/;

/** A short hash of a text or of a value's JSON, for a name. */
export const digest = (what: unknown) => nodeCrypto().createHash('sha256').update(typeof what === 'string' ? what : JSON.stringify(what)).digest('hex').slice(0, 16);

/** What is wrong with `bytes` as the Iceberg object `key`, or undefined when they agree. */
export function icebergObjectProblem(key: string, bytes: Uint8Array): string | undefined {
  const m = METADATA.exec(key);
  if (m === null) return checksumProblem(key, bytes);
  const text = Buffer.from(bytes).toString('utf8');
  return digest(text) === m[1] ? undefined : `its text hashes to ${digest(text)}, its name says ${m[1]}`;
}

/** Every Iceberg object in the store read and checked against its name: what is wrong with each that disagrees. */
export async function checkIcebergObjects(store: ObjectStore): Promise<{ checked: number; problems: { key: string; message: string }[] }> {
  const problems: { key: string; message: string }[] = [];
  let checked = 0;
  for await (const o of store.list(ICEBERG_PREFIX)) {
    const bytes = await store.get(o.key);
    if (bytes === undefined) continue;
    checked++;
    const problem = icebergObjectProblem(o.key, bytes);
    if (problem !== undefined) problems.push({ key: o.key, message: problem });
  }
  return { checked, problems };
}
