// Random names (temporary files, a statement's private identifiers) and uuids.
import { nodeCrypto } from './on-first-use.js';

export const randomHex = (bytes: number): string => nodeCrypto().randomBytes(bytes).toString('hex');

export const randomUUID = (): string => nodeCrypto().randomUUID();
