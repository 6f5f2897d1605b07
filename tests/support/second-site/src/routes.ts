/**
 * The second site's URL table: `/`, `/blog/`, `/blog/{uid}`, `/sitemap.xml`, `/robots.txt` and the
 * error pages. Pure functions; the route resolver below is the same table as Prismic sees it.
 */
import type { PrismicDocument, Route as ResolverRoute } from "@prismicio/client";

export const POST_TYPE = "post";
export const CONFIG_TYPE = "site_config";
export const MOVED_TYPE = "moved";

export const HOME = "/";
export const BLOG = "/blog/";
export const SITEMAP = "/sitemap.xml";
export const ROBOTS = "/robots.txt";
export const NOT_FOUND = "404";
export const ERROR_ROUTES = ["404", "500", "503"] as const;

export const resolver: ResolverRoute[] = [{ type: POST_TYPE, path: "/blog/:uid" }];

const UID = /^[a-z0-9][a-z0-9_-]{0,79}$/;

/** Why `uid` cannot be a post's uid (it becomes a path segment and a storage folder). */
export function uidProblem(_type: string, uid: unknown): string | undefined {
  if (typeof uid !== "string" || uid === "") return "has no uid";
  if (!UID.test(uid))
    return `uid ${JSON.stringify(uid)} cannot be a path segment: use lowercase letters, digits, "-" and "_" (80 at most)`;
  return undefined;
}

export function routeOf(doc: Pick<PrismicDocument, "type" | "uid">): string | null {
  if (doc.type !== POST_TYPE || uidProblem(doc.type, doc.uid) !== undefined) return null;
  return `/blog/${doc.uid}`;
}

export function problemOf(doc: Pick<PrismicDocument, "type" | "uid">): string | undefined {
  return doc.type === POST_TYPE ? uidProblem(doc.type, doc.uid) : undefined;
}

export type Parsed =
  | { kind: "listing"; route: string }
  | { kind: "post"; uid: string }
  | { kind: "error"; route: string }
  | { kind: "not-found" };

/** What a request path shows; one trailing slash is tolerated on a post, the query is ignored. */
export function parse(rawPath: string): Parsed {
  const end = rawPath.search(/[?#]/);
  const path = end === -1 ? rawPath : rawPath.slice(0, end);
  if (path === HOME || path === SITEMAP || path === ROBOTS) return { kind: "listing", route: path };
  if (path === "/blog" || path === BLOG) return { kind: "listing", route: BLOG };
  if ((ERROR_ROUTES as readonly string[]).includes(path)) return { kind: "error", route: path };
  const post = /^\/blog\/([^/]+)\/?$/.exec(path);
  if (post && uidProblem(POST_TYPE, post[1]) === undefined) return { kind: "post", uid: post[1] as string };
  return { kind: "not-found" };
}

/** The canonical spelling of a path, or undefined when no route matches. */
export function canonical(path: string): string | undefined {
  const parsed = parse(path);
  if (parsed.kind === "post") return `/blog/${parsed.uid}`;
  if (parsed.kind === "not-found") return undefined;
  return parsed.route;
}

/** The storage key of a route: `blog/hello/index.html`, `blog/index.html`, `404.html`. */
export function keyOf(route: string): string {
  const parsed = parse(route);
  switch (parsed.kind) {
    case "post":
      return `blog/${parsed.uid}/index.html`;
    case "error":
      return `${parsed.route}.html`;
    case "not-found":
      return "404.html";
    case "listing":
      if (parsed.route === HOME) return "index.html";
      if (parsed.route === BLOG) return "blog/index.html";
      return parsed.route.slice(1);
  }
}
