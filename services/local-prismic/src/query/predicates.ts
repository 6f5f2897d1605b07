/**
 * Turns parsed `q` predicates into document matchers. Everything Prismic would
 * refuse is a `parsing-error` pointing at the argument; everything Prismic answers
 * but we do not implement is an `api_unsupported_error`, never a silent wrong answer.
 */

import { dateMatches, isDateArgument } from "./dates.ts";
import { parsingError, unsupportedError } from "./errors.ts";
import { describeKind, isFilled, linkedDocumentId } from "./field-values.ts";
import { type Path, parsePath, pathAppliesTo, readPath } from "./paths.ts";
import { type Arg, type ArgValue, type PredicateNode, parseQuery, type Scalar } from "./query-parser.ts";
import { isRecord, type PrismicDocument } from "./types.ts";

/**
 * Whether a document matches, and where the documents that can match are, when the predicate says:
 * `ids` (`at` or `in` on `document.id`), `type` (`at` on `document.type`, and every `my.<type>.*`
 * path, which only documents of that type have), `uids` of that type (`at`, `any` or `in` on
 * `my.<type>.uid`). The search reads those from its indexes instead of testing every document
 * (document-set.ts); every predicate is still tested on them.
 */
export type Matcher = ((doc: PrismicDocument) => boolean) & {
  readonly ids?: ReadonlySet<string>;
  readonly type?: string;
  readonly uids?: ReadonlySet<string>;
};

type Narrowing = { ids: ReadonlySet<string> } | { type: string; uids?: ReadonlySet<string> };

const narrowed = (match: (doc: PrismicDocument) => boolean, where: Narrowing): Matcher =>
  Object.assign(match, where);

/** `match`, narrowed to its type when its path is a `my.<type>.*` one. */
const ofPathType = (path: Path, match: (doc: PrismicDocument) => boolean): Matcher =>
  path.kind === "document" ? match : narrowed(match, { type: path.type });

const SUPPORTED = "at, not, any, in, has and missing";
const KNOWN_BUT_NOT_IMPLEMENTED = /^(fulltext|similar|number\.[\w-]+|date\.[\w-]+|geopoint\.[\w-]+)$/;

/** Parses and compiles one `q` value; its predicates all have to match. */
export function compileQuery(source: string): Matcher[] {
  return parseQuery(source).map(compilePredicate);
}

export function compilePredicate(node: PredicateNode): Matcher {
  switch (node.name) {
    case "at":
    case "not":
    case "any":
    case "in":
      return compileComparison(node);
    case "has":
    case "missing":
      return compilePresence(node);
  }
  if (KNOWN_BUT_NOT_IMPLEMENTED.test(node.name)) {
    throw unsupportedError(
      `The local content service does not implement ${node.name}(...); it implements ${SUPPORTED}. Query Prismic itself for this, or filter the results in code`,
    );
  }
  throw unsupportedError(
    `Unknown predicate ${node.name}(...); the local content service implements ${SUPPORTED}`,
  );
}

function compileComparison(node: PredicateNode): Matcher {
  const [pathArg, valueArg] = expectArgs(node, 2);
  const path = resolvePath(node, pathArg);
  if (valueArg?.kind !== "value") throw argError(node, valueArg ?? pathArg, "a value as its second argument");
  const value = valueArg.value;
  const fail = (expected: string) => argError(node, valueArg, expected);

  if (node.name === "in") {
    if (!(path.kind === "uid" || (path.kind === "document" && path.field === "id"))) {
      throw parsingError(
        `in() only accepts document.id or my.<type>.uid, not ${path.text}; use any() for other paths`,
        node.source,
        pathArg.offset,
      );
    }
    const ids = new Set(stringList(value, fail));
    const match = (doc: PrismicDocument) =>
      pathAppliesTo(doc, path) && ids.has(readPath(doc, path) as string);
    return narrowed(match, path.kind === "document" ? { ids } : { type: path.type, uids: ids });
  }

  if (path.kind === "document" && path.field === "tags") {
    // For tags, at/not take one tag or a list meaning "all of them"; any means "at least one".
    const tags = typeof value === "string" ? [value] : stringList(value, fail);
    if (node.name === "any") return (doc) => tags.some((tag) => doc.tags.includes(tag));
    const hasAll = (doc: PrismicDocument) => tags.every((tag) => doc.tags.includes(tag));
    return node.name === "at" ? hasAll : (doc) => !hasAll(doc);
  }

  const candidates: Scalar[] =
    node.name === "any" ? scalarList(value, fail) : [single(value, path, node, fail)];
  for (const candidate of candidates) checkArgumentType(path, candidate, fail);
  const equals = (doc: PrismicDocument) =>
    candidates.some((c) => valueEquals(node, path, readPath(doc, path), c));
  if (node.name === "not") return ofPathType(path, (doc) => pathAppliesTo(doc, path) && !equals(doc));
  const match = (doc: PrismicDocument) => pathAppliesTo(doc, path) && equals(doc);
  if (path.kind === "uid") return narrowed(match, { type: path.type, uids: new Set(candidates.map(String)) });
  if (path.kind !== "document") return ofPathType(path, match);
  if (node.name === "at" && path.field === "id")
    return narrowed(match, { ids: new Set(candidates.map(String)) });
  if (node.name === "at" && path.field === "type") return narrowed(match, { type: String(candidates[0]) });
  return match;
}

function compilePresence(node: PredicateNode): Matcher {
  const [pathArg] = expectArgs(node, 1);
  const path = resolvePath(node, pathArg);
  if (path.kind === "document") {
    throw parsingError(
      `${node.name}() only accepts my.<type>.<field> paths, not ${path.text}`,
      node.source,
      pathArg.offset,
    );
  }
  const wanted = node.name === "has";
  return ofPathType(path, (doc) => pathAppliesTo(doc, path) && isFilled(readPath(doc, path)) === wanted);
}

/** Whether a document's value equals one predicate argument. */
function valueEquals(node: PredicateNode, path: Path, actual: unknown, expected: Scalar): boolean {
  if (
    path.kind === "document" &&
    (path.field === "first_publication_date" || path.field === "last_publication_date")
  ) {
    return dateMatches(actual as string | null, expected as string | number);
  }
  if (actual === null || actual === undefined) return false;
  if (typeof actual === "string" || typeof actual === "number" || typeof actual === "boolean") {
    return actual === expected;
  }
  // Prismic compares a content relationship with the linked document's id.
  if (isRecord(actual) && typeof actual.link_type === "string") return linkedDocumentId(actual) === expected;
  throw unsupportedError(
    `The local content service does not implement ${node.name}(${path.text}, ...) on a ${describeKind(actual)} field; ` +
      "at, not and any compare text, select, number, boolean, date and content relationship fields",
  );
}

/** Metadata paths only hold strings (or dates), so other argument types are mistakes. */
function checkArgumentType(path: Path, value: Scalar, fail: (expected: string) => Error): void {
  if (path.kind === "uid" || path.kind === "document") {
    if (path.kind === "document" && path.field.endsWith("publication_date")) {
      if (!isDateArgument(value)) throw fail("a date (a string such as 2020-04-03 or epoch milliseconds)");
    } else if (typeof value !== "string") {
      throw fail(`a string for ${path.text}`);
    }
  }
}

function single(value: ArgValue, path: Path, node: PredicateNode, fail: (expected: string) => Error): Scalar {
  if (Array.isArray(value))
    throw fail(`a single value for ${path.text} (${node.name}() with a list is any())`);
  return value;
}

function scalarList(value: ArgValue, fail: (expected: string) => Error): Scalar[] {
  if (!Array.isArray(value)) throw fail('a list such as ["a", "b"]');
  return value;
}

function stringList(value: ArgValue, fail: (expected: string) => Error): string[] {
  const list = scalarList(value, fail);
  if (!list.every((v): v is string => typeof v === "string")) throw fail("a list of strings");
  return list;
}

function expectArgs(node: PredicateNode, count: number): [Arg, ...Array<Arg | undefined>] {
  const [first] = node.args;
  if (node.args.length !== count || first === undefined) {
    throw parsingError(
      `${node.name}() takes ${count} argument${count === 1 ? "" : "s"}, got ${node.args.length}`,
      node.source,
      node.offset,
    );
  }
  return [first, ...node.args.slice(1)];
}

function resolvePath(node: PredicateNode, arg: Arg): Path {
  if (arg.kind !== "path") throw argError(node, arg, "a path such as document.type as its first argument");
  const result = parsePath(arg.path);
  if (result.ok) return result.path;
  if (result.reason === "unsupported") throw unsupportedError(result.message);
  throw parsingError(result.message, node.source, arg.offset);
}

function argError(node: PredicateNode, arg: Arg, expected: string): Error {
  return parsingError(`${node.name}() expects ${expected}`, node.source, arg.offset);
}
