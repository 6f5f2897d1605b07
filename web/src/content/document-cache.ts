/**
 * A value computed from a document object, kept on the object itself (a non-enumerable symbol
 * property), or in a WeakMap when the object cannot take one (frozen).
 *
 * Decision (issue 22): in module-level WeakMaps keyed by the document, these values outlived their
 * documents long enough to be promoted to V8's old generation (tests/unit/document-cache.test.ts
 * measures it). A build parses each page's document just before rendering it and drops it after,
 * so every page's normalisation, notices and links ended in the render thread's old generation: 22
 * full collections of its heap in a build of 10,000 pages, 15 with the values on the documents
 * (docs/benchmarks.md, "Issue 22, fifth pass"). Spread copies, `structuredClone` and
 * `JSON.stringify` do not carry them (a non-enumerable symbol), so no copy or hash of a document
 * sees them.
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
