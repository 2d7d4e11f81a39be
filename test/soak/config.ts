// What every soak process is told (one JSON argument) and how each opens the shared catalog. S3
// credentials never travel in it: each process reads them from its environment (test/store/s3-env.ts).
import * as path from 'node:path';
import { Catalog, type OpenOptions, type S3StoreOptions } from '../../src/index.js';
import { s3Options } from '../store/s3-env.js';

export interface SoakConfig {
  /** Where the run keeps its index directories, journals, metrics and report. */
  out: string;
  /** S3: the prefix in the test bucket; the server and credentials come from each process's environment. */
  store: { dir: string } | { s3: { prefix: string } };
  /** Every process stops starting work at this time (ms since epoch) and exits. */
  until: number;
  writers: number;
  readers: number;
  /** Snapshots older than this are let go by GC's retain-from advances. */
  retainMs: number;
  /** The grace period of reclamation, and the age log compaction and checkpoint pruning wait for. */
  graceMs: number;
  seed: number;
  /** The snapshot that created the table. */
  tableSince: number;
}

export const TABLE = 'main.events';

export function storeOption(store: SoakConfig['store']): { path: string } | { s3: S3StoreOptions } {
  if ('dir' in store) return { path: store.dir };
  const s3 = s3Options();
  if (s3 === undefined) throw new Error('soak on S3: start ../shared/s3/start-s3.sh and export what it prints (S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY)');
  return { s3: { ...s3, prefix: store.s3.prefix } };
}

export function openShared(config: SoakConfig, role: string, extra: Partial<OpenOptions> = {}): Promise<Catalog> {
  return Catalog.open({ dir: path.join(config.out, `index-${role}`), store: storeOption(config.store), writerName: role, ...extra });
}

export const journalFile = (config: SoakConfig, writer: number) => path.join(config.out, `journal-${writer}.jsonl`);
export const metricsFile = (config: SoakConfig, role: string) => path.join(config.out, `${role}.metrics.jsonl`);
