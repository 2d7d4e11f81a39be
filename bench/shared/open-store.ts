import { DirectoryStore, type ObjectStore, S3Store } from '../../src/index.js';
import type { StoreSpec } from './stores.js';

export function openStore(spec: StoreSpec): ObjectStore {
  return 'path' in spec ? new DirectoryStore(spec.path) : new S3Store(spec.s3);
}
