/**
 * `make(key)`, made once per key object and kept as long as that object lives (a WeakMap). This
 * service's document lists and maps are made per ref and never changed afterwards (store.ts), so
 * what is derived from one (its list, indexes, tags) is derived once, not per request.
 */
export function oncePer<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}
