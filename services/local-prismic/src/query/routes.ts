/**
 * Prismic's route resolver: `routes=[{"type":"page","uid":"home","path":"/"},{"type":"page","path":"/:uid"}]`
 * gives every document and document link a `url`. Placeholders implemented:
 * `:uid` and `:lang`, each optionally `?`. Others need `resolvers` (content
 * relationship paths), which this service does not implement.
 */

import { unsupportedError, validationError } from "./errors.ts";
import { isRecord } from "./types.ts";

type Segment = { kind: "static"; text: string } | { kind: "uid" | "lang"; optional: boolean };

export interface Route {
  type: string;
  uid?: string;
  lang?: string;
  path: string;
  segments: Segment[];
}

/** What a route needs to know about a document. */
export interface RoutableDocument {
  type: string;
  uid: string | null;
  lang: string;
}

export function parseRoutes(raw: string): Route[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw validationError(`routes is not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed))
    throw validationError("routes must be a JSON array of {type, path, uid?, lang?}");
  return parsed.map((route, index) => parseRoute(route, index));
}

function parseRoute(route: unknown, index: number): Route {
  const where = `routes[${index}]`;
  if (!isRecord(route)) throw validationError(`${where} must be an object {type, path, uid?, lang?}`);
  const { type, path, uid, lang, resolvers } = route;
  if (typeof type !== "string" || type === "")
    throw validationError(`${where}.type must be a non-empty string`);
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw validationError(`${where}.path must be a string starting with /`);
  }
  if (uid !== undefined && typeof uid !== "string") throw validationError(`${where}.uid must be a string`);
  if (lang !== undefined && typeof lang !== "string") throw validationError(`${where}.lang must be a string`);
  if (resolvers !== undefined) {
    if (!isRecord(resolvers)) throw validationError(`${where}.resolvers must be an object`);
    if (Object.keys(resolvers).length > 0) {
      throw unsupportedError(
        `The local content service does not implement route resolvers (${where}.resolvers)`,
      );
    }
  }
  return {
    type,
    path,
    segments: parseSegments(path, where),
    ...(uid === undefined ? {} : { uid }),
    ...(lang === undefined ? {} : { lang }),
  };
}

function parseSegments(path: string, where: string): Segment[] {
  return path
    .split("/")
    .filter((part) => part !== "")
    .map((part): Segment => {
      if (!part.startsWith(":")) return { kind: "static", text: part };
      const optional = part.endsWith("?");
      const name = part.slice(1, optional ? -1 : undefined);
      if (name === "uid" || name === "lang") return { kind: name, optional };
      throw unsupportedError(
        `The local content service does not implement the placeholder :${name} in ${where}.path (${path}); only :uid and :lang (optionally with ?) are implemented`,
      );
    });
}

/**
 * The url of the first route that fits the document: same type, and the same uid
 * and lang when the route names them. A route whose required `:uid` the document
 * lacks does not fit. No fitting route: null, as Prismic answers.
 */
export function resolveUrl(
  routes: readonly Route[],
  doc: RoutableDocument,
  masterLang: string,
): string | null {
  for (const route of routes) {
    if (route.type !== doc.type) continue;
    if (route.uid !== undefined && route.uid !== doc.uid) continue;
    if (route.lang !== undefined && route.lang !== doc.lang) continue;
    const url = buildPath(route.segments, doc, masterLang);
    if (url !== null) return url;
  }
  return null;
}

function buildPath(segments: readonly Segment[], doc: RoutableDocument, masterLang: string): string | null {
  const parts: string[] = [];
  for (const segment of segments) {
    if (segment.kind === "static") {
      parts.push(segment.text);
    } else if (segment.kind === "uid") {
      if (doc.uid !== null && doc.uid !== "") parts.push(doc.uid);
      else if (!segment.optional) return null;
    } else if (!(segment.optional && doc.lang === masterLang)) {
      // An optional :lang? is left out for the master language: `/about` but `/fr-fr/a-propos`.
      parts.push(doc.lang);
    }
  }
  return `/${parts.join("/")}`;
}
