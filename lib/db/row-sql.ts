/** The rows of a raw statement's result (node-postgres and PGlite results both carry `rows`). */
export function rows<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
