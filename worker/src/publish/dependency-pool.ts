/**
 * Keeps one copy of each dependency string among the route entries a publish holds. Each entry is
 * parsed from its own JSON, so without the pool a 10,000-route fan-out holds ~10,000 copies of each
 * of the same few strings (`doc:<settings>`, `url:<each navigation target>`, …), twice over. One pool
 * per publish or build: it lives as long as the entries do, and no longer.
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
