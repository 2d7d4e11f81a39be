// Catalog options (ducklake_metadata, global scope): `[Metadata][key]` → { value }. Singletons: not
// versioned, so reading one gives its current value.
import { decodeKey, encodeKey, type Key, type KeyRange, keyPrefix, prefixRange } from './key-codec.js';
import { type Mutation, putRow } from './mutation.js';
import { Space } from './spaces.js';
import { decodeValue } from './value-codec.js';

interface MetadataRow {
  value: string;
}

/** The option the catalog's data path is recorded under, fixed when the catalog is created. */
export const DATA_PATH_OPTION = 'data_path';

export const optionKey = (name: string): Key => encodeKey(Space.Metadata, [name]);

export const ALL_OPTIONS: KeyRange = prefixRange(keyPrefix(Space.Metadata));

export const putOption = (name: string, value: string): Mutation => putRow(optionKey(name), { value } satisfies MetadataRow);

export const decodeOption = (key: Key, bytes: Uint8Array): { name: string; value: string } => ({
  name: decodeKey(key).fields[0] as string,
  value: decodeValue<MetadataRow>(key, bytes).value,
});
