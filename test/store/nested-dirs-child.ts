// Creates objects in directories that do not exist yet, the store's root among them, for the test that traces
// the directory store's system calls (directory-store-syncs.test.ts).
// Usage: nested-dirs-child.ts <dir> <durable|relaxed>
import * as path from 'node:path';
import { DirectoryStore } from '../../src/store/directory-store.js';

const [dir, durability] = process.argv.slice(2) as [string, 'durable' | 'relaxed'];
const store = new DirectoryStore(path.join(dir, 'store'), { sync: durability === 'durable' });
await store.putIfAbsent('a/b/c/x', new Uint8Array(5000).fill(1));
await store.replace('a/d/y', new Uint8Array(5000).fill(2));
