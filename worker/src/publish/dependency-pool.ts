/**
 * Keeps one copy of each dependency string among the route entries a publish holds. Every entry
 * read from the index or returned by a child job is parsed from its own JSON, so each holds its own
 * copies of the same few strings (`doc:<settings>`, `url:<each navigation target>`, …): a fan-out of
 * 10,000 routes held ~10,000 copies of each of ~25 strings twice over (the previous entries and the
 * new ones), ~15 MB of a 60 MB heap (a heap snapshot of the publishing worker, docs/benchmarks.md).
 * One pool per publish or build (whose manifest holds every route's entry to its end): it lives as
 * long as the entries do, and no longer.
 */
export function dependencyPool(): <Entry extends { dependencies: string[] }>(entry: Entry) => Entry {
  const pool = new Map<string, string>();
  return (entry) => {
    const dependencies = entry.dependencies;
    for (let i = 0; i < dependencies.length; i++) {
      const dependency = dependencies[i] as string;
      const kept = pool.get(dependency);
      if (kept === undefined) pool.set(dependency, dependency);
      else dependencies[i] = kept;
    }
    return entry;
  };
}
