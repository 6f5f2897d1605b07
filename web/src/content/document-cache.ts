/**
 * A value computed from a document object, kept on the object itself (a non-enumerable symbol
 * property), or in a WeakMap when the object cannot take one (frozen).
 *
 * Decision (issue 22): module-level WeakMaps keyed by each page's document kept the render thread's
 * young documents alive until its next full collection (V8 keeps the values of an old WeakMap's
 * entries while it scavenges). A build of 10,000 pages parses each document just before rendering
 * it, so every one of them was promoted to the old generation with its normalisation, notices and
 * links: 22 full collections of the render thread's heap. On the object, a value lives exactly as
 * long as its document (16 full collections; docs/benchmarks.md). Spread copies and
 * `JSON.stringify` do not carry it (not enumerable, a symbol), so no copy or hash of a document sees it.
 */
export interface DocumentCache<V> {
  get(doc: object): V | undefined;
  set(doc: object, value: V): void;
}

export function documentCache<V>(name: string): DocumentCache<V> {
  const symbol = Symbol(name);
  const frozen = new WeakMap<object, V>();
  return {
    get(doc) {
      return Object.hasOwn(doc, symbol) ? (doc as Record<symbol, V>)[symbol] : frozen.get(doc);
    },
    set(doc, value) {
      if (Object.isExtensible(doc)) Object.defineProperty(doc, symbol, { value, configurable: true });
      else frozen.set(doc, value);
    },
  };
}
