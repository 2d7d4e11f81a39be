// Objects whose name carries their bytes' checksum: `<prefix>.<crc32, 8 hex>.<ext>`. The prefix says what the
// object is for and can be known before it is written (Iceberg's manifests, lists and delete copies are named
// so: GC plans with the prefixes, src/iceberg/); the checksum lets `verify` find a flipped byte by its name alone.
import { crc32 } from 'node:zlib';

const CHECKSUMMED = /^(.*)\.([0-9a-f]{8})\.([a-z]+)$/;

const crcHex = (bytes: Uint8Array) => crc32(bytes).toString(16).padStart(8, '0');

/** The name for `prefix` holding `bytes`. */
export const checksummedName = (prefix: string, bytes: Uint8Array, ext: string) => `${prefix}.${crcHex(bytes)}.${ext}`;

/** The prefix a checksummed name was made from, or undefined when `key` is not one. */
export const prefixOf = (key: string): string | undefined => CHECKSUMMED.exec(key)?.[1];

/** What is wrong with `bytes` as the object `key` names, or undefined when they agree (or `key` carries no checksum). */
export function checksumProblem(key: string, bytes: Uint8Array): string | undefined {
  const c = CHECKSUMMED.exec(key);
  if (c === null || crcHex(bytes) === c[2]) return undefined;
  return `its bytes have CRC-32 ${crcHex(bytes)}, its name says ${c[2]}`;
}
