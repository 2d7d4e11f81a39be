// What every soak process is told (one JSON argument) and how each opens the shared catalog. S3
// credentials never travel in it: each process reads them from its environment, as the CLI does.
import * as path from 'node:path';
import { Catalog, type OpenOptions } from '../../src/index.js';

export interface SoakConfig {
  /** Where the run keeps its index directories, journals, metrics and report. */
  out: string;
  store: { dir: string } | { s3: { bucket: string; prefix: string; endpoint: string; region: string } };
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

export function storeOption(config: SoakConfig): NonNullable<OpenOptions['store']> {
  if ('dir' in config.store) return { path: config.store.dir };
  const { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } = process.env;
  if (!S3_ACCESS_KEY_ID || !S3_SECRET_ACCESS_KEY) throw new Error('soak on S3: export S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (../shared/s3/start-s3.sh prints them)');
  return {
    s3: {
      ...config.store.s3,
      credentials: { accessKeyId: S3_ACCESS_KEY_ID, secretAccessKey: S3_SECRET_ACCESS_KEY },
      forcePathStyle: true,
    },
  };
}

export function openShared(config: SoakConfig, role: string, extra: Partial<OpenOptions> = {}): Promise<Catalog> {
  return Catalog.open({ dir: path.join(config.out, `index-${role}`), store: storeOption(config), writerName: role, ...extra });
}

export const journalFile = (config: SoakConfig, writer: number) => path.join(config.out, `journal-${writer}.jsonl`);
export const metricsFile = (config: SoakConfig, role: string) => path.join(config.out, `${role}.metrics.jsonl`);
