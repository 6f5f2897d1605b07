import type { RepositoryFolder } from "./persistence.ts";
import type { PrismicDocument } from "./query/index.ts";

/**
 * A document as the store holds it: its metadata in memory, its `data` read from its object file
 * (persistence.ts) each time it is asked for. Parsed data is most of a document (a generated
 * page: 6 KB of JSON, about twice that parsed), and a query reads the data of the few documents it
 * returns, never of those it filters out by metadata (type, id, uid, tags, dates): so a repository's
 * memory grows with its number of documents, not their size (docs/local-content-service.md).
 *
 * `data` is an enumerable own getter, so that spreading, `structuredClone` and `JSON.stringify`
 * see the whole document as before. Object files are immutable and kept while any queryable ref
 * names them (store.ts), so the getter always finds its file.
 */
const FILE = Symbol("object file");
const FOLDER = Symbol("repository folder");

interface Stored {
  [FILE]: string;
  [FOLDER]: RepositoryFolder;
}

function readData(this: Stored): Record<string, unknown> {
  return this[FOLDER].readObjectSync(this[FILE]).data;
}

/** `doc` (written as object `file` in `folder`) as the store keeps it: without its data in memory. */
export function storedDocument(
  doc: PrismicDocument,
  folder: RepositoryFolder,
  file: string,
): PrismicDocument {
  const { data: _data, ...metadata } = doc;
  Object.defineProperty(metadata, FILE, { value: file });
  Object.defineProperty(metadata, FOLDER, { value: folder });
  Object.defineProperty(metadata, "data", { get: readData, enumerable: true, configurable: true });
  return metadata as PrismicDocument;
}

/** The object file a stored document is read from; undefined for a document not stored yet. */
export function objectFileOf(doc: PrismicDocument): string | undefined {
  return (doc as Partial<Stored>)[FILE];
}
