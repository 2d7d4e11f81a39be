// The WHERE of a DELETE or UPDATE as far as file skipping can use it: DuckDB's bound plan puts the statement's
// conjuncts in a LOGICAL_FILTER right over the target's LOGICAL_GET, each column a BOUND_REF into that GET's
// columns. The comparisons of a column with a constant among them are turned back into the shape pruning.ts
// reads for a SELECT's WHERE. Anything else — a join (USING, FROM), a subquery, an expression on the column —
// is left out, which only keeps more files. A statement that reads its target a second time (a subquery over
// it) gets no filter: that read sees the same scratch table, which must then hold every row.
import type { Named, PlanNode } from './mirror.js';
import { nodesOf } from './mirror.js';
import type { TableRef } from './statement.js';

interface Bound {
  expression_class: string;
  type: string;
  [k: string]: unknown;
}

const isTarget = (n: PlanNode, t: Named) => {
  const data = n.function_data as { schema?: string; table?: string } | undefined;
  return n.type === 'LOGICAL_GET' && n.name === 'seq_scan' && data?.schema === t.schema && data.table === t.table;
};

/** Whether the plan scans `target` once: a statement that reads it again (a subquery over it) reads its scratch table. */
export const readsTargetOnce = (plan: PlanNode, target: Named): boolean => nodesOf(plan, 'LOGICAL_GET').filter((g) => isTarget(g, target)).length === 1;

/** The filter of the target's scan a DELETE or UPDATE (`node`) can skip files by, if it has one. */
export function targetFilter(plan: PlanNode, node: PlanNode, target: Named): TableRef['filter'] {
  if (!readsTargetOnce(plan, target)) return undefined;
  let n = node.children[0];
  while (n?.type === 'LOGICAL_PROJECTION' && n.children.length === 1) n = n.children[0];
  const get = n?.children[0];
  if (n?.type !== 'LOGICAL_FILTER' || get === undefined || !isTarget(get, target)) return undefined;
  const names = get.names as string[];
  const columns = (get.column_indexes as { index: number }[]).map((c) => names[c.index]);
  const children = (n.expressions as Bound[]).map((e) => unbound(e, columns)).filter((e) => e !== undefined);
  return children.length === 0 ? undefined : { where: { class: 'CONJUNCTION', type: 'CONJUNCTION_AND', children }, names: [] };
}

/** A bound conjunct as the parser would have given it, or undefined when it is not one file skipping reads. */
function unbound(e: Bound, columns: readonly (string | undefined)[]): object | undefined {
  const operand = (x: Bound): object | undefined => {
    if (x.expression_class === 'BOUND_REF') {
      const name = columns[x.index as number];
      return name === undefined ? undefined : { class: 'COLUMN_REF', column_names: [name] };
    }
    if (x.expression_class === 'BOUND_CONSTANT') return { class: 'CONSTANT', value: x.value };
    // A constant cast to the column's type: a DATE from its text stays a DATE; a number keeps its value (a
    // cast that would change it, a DECIMAL's, is one pruning leaves to DuckDB anyway).
    if (x.expression_class === 'BOUND_CAST' && (x.child as Bound).expression_class === 'BOUND_CONSTANT') {
      const to = (x.return_type as { id: string }).id;
      const constant = { class: 'CONSTANT', value: (x.child as Bound).value };
      return to === 'DATE' ? { class: 'CAST', cast_type: { id: 'DATE' }, child: constant } : constant;
    }
    return undefined;
  };
  if (e.expression_class === 'BOUND_COMPARISON') {
    const [left, right] = [operand(e.left as Bound), operand(e.right as Bound)];
    return left && right ? { class: 'COMPARISON', type: e.type, left, right } : undefined;
  }
  if (e.expression_class === 'BOUND_CONJUNCTION' && e.type === 'CONJUNCTION_AND') {
    const parts = (e.children as Bound[]).map((c) => unbound(c, columns));
    return parts.every((p) => p !== undefined) ? { class: 'CONJUNCTION', type: 'CONJUNCTION_AND', children: parts } : undefined;
  }
  return undefined;
}
