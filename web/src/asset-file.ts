/** A built file served under `/assets/`: named by its content hash, so cacheable forever. */
export interface AssetFile {
  /** Storage key, e.g. `assets/site.3f2a9c01d4.css`. */
  key: string;
  body: Buffer;
  contentType: string;
}
