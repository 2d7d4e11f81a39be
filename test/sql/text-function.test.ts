// The parser's functions run as statements prepared once, on one connection shared by every statement of a
// catalog (decision 0010): calls made at once must each get their own answer, and one that fails must not
// stop the ones after it.
import { describe, expect, it } from 'vitest';
import * as path from 'node:path';
import { Engine } from '../../src/sql/engine.js';
import { expectCode, openCatalog, tempDir } from '../helpers.js';

const SERIALIZE = 'SELECT json_serialize_sql($1::VARCHAR) AS v';
const DESERIALIZE = 'SELECT json_deserialize_sql($1::VARCHAR) AS v';

describe('Engine.textFunction', () => {
  it('calls made at once each get the answer for their own argument, and a failed call does not stop the rest', async () => {
    const dir = await tempDir();
    const engine = new Engine({ lakeDirs: [], scratchDir: path.join(dir, 'sql-scratch'), memoryLimit: 2 ** 28 });
    try {
      const texts = Array.from({ length: 200 }, (_, i) => `SELECT k${i} FROM s.t_${i} WHERE v = ${i}`);
      const calls = texts.map(async (text, i) => {
        if (i % 50 === 7) return expectCode(engine.textFunction(DESERIALIZE, `not json ${i}`), 'INVALID_ARGUMENT');
        const tree = await engine.textFunction(SERIALIZE, text);
        return engine.textFunction(DESERIALIZE, tree);
      });
      const back = await Promise.all(calls);
      back.forEach((sql, i) => {
        if (i % 50 === 7) return;
        expect(sql).toBe(`SELECT k${i} FROM s.t_${i} WHERE (v = ${i})`);
      });
    } finally {
      await engine.close();
    }
    // Closed is closed: DuckDB is not started again behind a closed catalog.
    await expectCode(engine.textFunction(SERIALIZE, 'SELECT 1'), 'INVALID_ARGUMENT');
  });

  it('statements run at once through catalog.sql each read their own text', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id BIGINT)');
    await c.sql('INSERT INTO t SELECT * FROM range(10)');
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => c.sql(`SELECT ${i}::INT AS k, count(*)::INT AS n FROM t WHERE id < ${i % 10}`)));
    answers.forEach((r, i) => expect(r.rows).toEqual([{ k: i, n: i % 10 }]));
  });
});
