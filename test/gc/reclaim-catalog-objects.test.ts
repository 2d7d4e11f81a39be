// Orphan reclamation deletes what lies under the data path and no row names. A data path laid over what the
// catalog itself keeps in its store (log entries, checkpoints, compaction marks, segments, S3's probes,
// Iceberg's metadata) would make those orphans: with dataPath 'log' on the object layout, a dry run listed
// every log entry. So no catalog is created with such a data path.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/index.js';
import { expectCode, openCatalog, tempDir } from '../helpers.js';

describe('a data path never lies over the catalog’s own objects', () => {
  it('is refused at creation when it is, or holds, or lies under one of their prefixes, and nothing is created', async () => {
    for (const dataPath of ['log', 'log/', 'log/data', 'checkpoints', 'compacted', 'segments', '_strata', '_strata/probe', 'iceberg', 'iceberg/x']) {
      const dir = await tempDir();
      await expectCode(
        Catalog.open({ dir, dataPath, logLayout: 'objects' }),
        'INVALID_ARGUMENT',
        new RegExp(`^dataPath ${dataPath.replace(/\/$/, '')}/ lies over .+ which the catalog keeps in its store: orphan reclamation would take them for orphans; choose another data path \\(the default is data/\\)$`),
      );
      expect(existsSync(path.join(dir, 'store', 'log')), dataPath).toBe(false);
    }
  });

  it('takes a path that only begins with the same letters, and orphan reclamation leaves the log alone', async () => {
    for (const dataPath of ['logs', 'data/log', 'icebergs']) {
      const c = await openCatalog({ dataPath, logLayout: 'objects' });
      await c.sql('CREATE TABLE t (a INT)');
      await c.sql('INSERT INTO t VALUES (1)');
      const r = await c.reclaimFiles({ orphans: true, minAgeMs: 0, graceMs: 0, dryRun: true });
      expect(r.orphans, dataPath).toEqual([]);
      expect((await c.sql('SELECT a FROM t')).rows).toEqual([{ a: 1 }]);
    }
  });
});
