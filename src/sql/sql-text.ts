// Names and strings spelt into SQL text that DuckDB runs: a quoted identifier, a string constant.
export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
export const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
