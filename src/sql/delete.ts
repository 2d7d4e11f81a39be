// DELETE FROM … WHERE … through catalog.sql: the rows DuckDB's DELETE removed from the target's rows
// (rewrite.ts) become, per data file, a cumulative positional delete file. One commit.
import type { ReadState } from '../read/read-state.js';
import type { StatementFiles } from './statement-files.js';
import type { PlanNode } from './mirror.js';
import type { PlaneContext, SqlOptions, SqlResult } from './query.js';
import { deleteFiles, FILE, keptBefore, POS, rewriteRows } from './rewrite.js';

export function deleteRows(ctx: PlaneContext, r: ReadState, text: string, plan: PlanNode, node: PlanNode, onProgress: SqlOptions['onProgress'], held: StatementFiles): Promise<SqlResult> {
  return rewriteRows(ctx, r, text, plan, node, onProgress, held, {
    verb: 'DELETE FROM',
    before: (s, target) => keptBefore(s, target, []),
    files: async ({ s, target, table, scan, before }) => {
      const gone = s.name('__strata_gone');
      await s.run(`CREATE TABLE ${gone} AS SELECT ${FILE}, ${POS} FROM ${before} EXCEPT SELECT ${FILE}, ${POS} FROM ${s.name(target)}`);
      return { removed: await deleteFiles(ctx, s, target, table, scan, gone), added: [] };
    },
  });
}
