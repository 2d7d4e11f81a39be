// DuckDB for an import. The lake is the caller's own (its catalog file, and its data path, which files.ts
// confines every copy to), so the import's DuckDB is an instance of its own that reads any file, as a trusted
// caller's host read is (decision 0030); it writes only to a scratch directory of its own, removed after.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DEFAULT_MEMORY_LIMIT } from '../sql/settings.js';
import { Engine, type Session } from '../sql/engine.js';

export async function withImportDuckDB<T>(fn: (c: DuckDBConnection, session: Session) => Promise<T>): Promise<T> {
  const scratchDir = await mkdtemp(path.join(tmpdir(), 'strata-import-sql-'));
  const engine = new Engine({ lakeDirs: [], scratchDir, memoryLimit: DEFAULT_MEMORY_LIMIT });
  const session = engine.session('the import', undefined);
  try {
    return await session.withHost(true, (c) => fn(c, session));
  } finally {
    await session.end();
    await engine.close();
    await rm(scratchDir, { recursive: true, force: true });
  }
}
