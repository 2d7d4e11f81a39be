// The child side of index-check.ts: `node index-check-child.js <index dir>`. Exit 0: every key and value
// read and recognised; 2: damage found (the reason on stderr); 3: another process holds the index (nothing
// is known about it, and it must not be removed); a signal: LevelDB aborted on damaged bytes.
//
// LevelDB's recovery of its write-ahead log skips records that fail their checksum and goes on with the
// next ones (paranoid_checks is off, and classic-level cannot turn it on): the index then lacks a batch in
// the middle while its applied sequence, written by a later batch, looks current. Recovery says so only in
// its own LOG file, so that is read too.
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Level } from 'level';
import { FrameError, unframe } from '../../keys/framing.js';
import { inKnownSpace } from '../../keys/key-codec.js';
import { isIndexBookkeeping } from '../../keys/system.js';

const dir = process.argv[2]!;
const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view', createIfMissing: false });
try {
  await db.open();
  const recovery = (await readFile(path.join(dir, 'LOG'), 'utf8').catch(() => '')).split('\n').find((l) => /ignoring error|Corruption/.test(l));
  if (recovery !== undefined) throw new Error(`LevelDB's recovery dropped damaged records: ${recovery.replace(/^\S+ \S+ /, '')}`);
  let n = 0;
  for await (const [key, value] of db.iterator()) {
    n++;
    if (!inKnownSpace(key)) throw new Error(`key ${n} is in no key space (0x${Buffer.from(key).toString('hex')})`);
    if (isIndexBookkeeping(key)) continue;
    try {
      unframe(value);
    } catch (e) {
      if (e instanceof FrameError) throw new Error(`the value of key ${n} is not one of ours: ${e.message}`);
      throw e;
    }
  }
  await db.close();
} catch (e) {
  const locked = (e as { cause?: { code?: string } }).cause?.code === 'LEVEL_LOCKED';
  process.stderr.write(`${(e as { cause?: Error }).cause?.message ?? (e as Error).message}\n`);
  process.exit(locked ? 3 : 2);
}
