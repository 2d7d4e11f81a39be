// A table served from an S3 store names its objects by s3:// URIs an engine with credentials reads: every URI
// the metadata names (lists, manifests, data files, delete copies) is an object in the bucket, and Debian's
// avrocat decodes each list and manifest as fetched from there.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { S3Store } from '../../src/store/s3-store.js';
import { openCatalog, tempDir } from '../helpers.js';
import { ensureBucket, S3_BUCKET, s3Options } from '../store/s3-env.js';

const s3 = s3Options();

describe('Iceberg metadata on S3', () => {
  it.skipIf(s3 === undefined)('names every object by an s3:// URI that is in the bucket', async () => {
    await ensureBucket(s3!);
    const prefix = `t-${randomUUID()}`;
    const c = await openCatalog({ store: { s3: { ...s3!, prefix } } });
    await c.sql('CREATE TABLE t (id BIGINT)');
    await c.sql('INSERT INTO t SELECT i FROM range(20) r(i)');
    await c.sql('DELETE FROM t WHERE id % 3 = 0');
    const { metadata, metadataLocation } = await c.iceberg('main', 't');
    const bucket = new S3Store({ ...s3!, prefix: '' });
    const tmp = await tempDir();
    const key = (uri: string) => {
      expect(uri.startsWith(`s3://${S3_BUCKET}/${prefix}/`), uri).toBe(true);
      return uri.slice(`s3://${S3_BUCKET}/`.length);
    };
    const fetched = async (uri: string) => {
      const bytes = await bucket.get(key(uri));
      expect(bytes, uri).toBeDefined();
      return bytes!;
    };
    const avrocat = async (uri: string) => {
      const file = join(tmp, `${randomUUID()}.avro`);
      await writeFile(file, await fetched(uri));
      return execFileSync('avrocat', [file], { encoding: 'utf8' }).trim().split('\n').map((l) => JSON.parse(l));
    };
    expect(JSON.parse(Buffer.from(await fetched(metadataLocation)).toString('utf8'))).toEqual(metadata);
    expect(metadata.location).toBe(`s3://${S3_BUCKET}/${prefix}/${c.dataPath}t`);
    let files = 0;
    for (const s of metadata.snapshots) {
      for (const m of await avrocat(s['manifest-list'])) {
        for (const e of await avrocat(m.manifest_path)) {
          await fetched(e.data_file.file_path);
          files++;
        }
      }
    }
    expect(files).toBeGreaterThanOrEqual(3);
  });
});
