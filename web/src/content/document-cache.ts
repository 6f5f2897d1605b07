/**
 * A value computed from a document object, kept on the object itself (a non-enumerable symbol
 * property), or in a WeakMap when the object cannot take one (frozen). On the object, the value
 * dies with its document in the young generation; in a module-level WeakMap it outlived the
 * document and was promoted (tests/unit/document-cache.test.ts shows it). Spread copies,
 * `structuredClone` and `JSON.stringify` do not carry a non-enumerable symbol, so no copy or hash
 * of a document sees the values.
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
