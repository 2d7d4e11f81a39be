// DuckLake's visibility rule, the one definition every read path uses: a version is visible at snapshot S
// when begin <= S and (end is null or S < end). Half-open, so a version ended at S is already gone at S.
export function isVisible(begin: number, end: number | null, at: number): boolean {
  return begin <= at && (end === null || at < end);
}
