/**
 * A deterministic island id from a slice id (`carousel$69ac2e75-…` →
 * `carousel-69ac2e75-…`): the same content always renders the same bytes, and
 * ids stay unique on a page because slice ids are. Falls back to type+index
 * for slices without an id (mocks, the simulator).
 */
export function islandId(slice: { id?: string | undefined; slice_type: string }, index: number): string {
  const base = slice.id ? slice.id : `${slice.slice_type}-${index}`;
  return base
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
