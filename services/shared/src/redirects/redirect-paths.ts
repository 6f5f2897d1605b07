/**
 * The paths of editors' redirects (the website's `redirects.type`): what a From path may be, how
 * it and a site-path target are spelled (the one way the website's routes are), and the storage key
 * of a redirect object. Pure but for the website's route table; table-tested
 * (tests/unit/redirect-rules.test.ts).
 *
 * A path is a sequence of segments each of which could be a uid (#content/uid-segments.ts: lowercase
 * letters of any script, digits, `-`, `_`), so a From path can never name a file, climb out of the
 * site's key prefix or smuggle a `/` in an encoded character; it is lowercased (every address of
 * the site is: a uid is lowercase) and loses its trailing slash, then each segment is
 * percent-encoded the way routes are (`/über-uns` → `/%C3%BCber-uns`).
 */
import { isUidSegmentSafe, uidToSegment } from "#content/uid-segments.ts";
import { website } from "#website";

/** Segments of a From path at most: deep enough for any old site's address. */
export const MAX_REDIRECT_SEGMENTS = 8;
/** Characters of a From path at most (its route key must stay well under the edge's limit). */
export const MAX_FROM_PATH_LENGTH = 512;
/** A redirect's location at most (S3's `x-amz-website-redirect-location` takes 2 KB). */
export const MAX_LOCATION_LENGTH = 2_000;

const { routes } = website;
const RESERVED_FIRST = new Set(routes.reserved);
/**
 * Reserved first segments under which the route table places documents (`/blog/:uid`): an old
 * address below one (`/blog/old-post`) is a fine From path, the segment alone is not.
 */
const DOCUMENT_PREFIXES = new Set(
  routes.resolver.flatMap(({ path }) => {
    const [first, ...rest] = path.split("/").filter(Boolean);
    return first !== undefined && !first.startsWith(":") && rest.length > 0 ? [first] : [];
  }),
);

export type PathResult = { path: string } | { problem: string };

/**
 * The canonical spelling of a path of the site given by an editor, or why it is none: lowercased,
 * percent-decoded then encoded as routes are, one trailing slash dropped; undefined when a segment
 * cannot be a uid (a file name, spaces, `..`) or it is not a path at all. `/` stays `/`.
 */
export function canonicalPath(raw: string): PathResult {
  if (!raw.startsWith("/") || raw.startsWith("//"))
    return { problem: "is not a path of this site (start it with /)" };
  const trimmed = raw.length > 1 && raw.endsWith("/") ? raw.slice(0, -1) : raw;
  if (trimmed === "/") return { path: "/" };
  const segments: string[] = [];
  for (const encoded of trimmed.slice(1).split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(encoded).toLowerCase().normalize("NFC");
    } catch {
      return { problem: `has a malformed percent-encoding (“${encoded}”)` };
    }
    if (segment === "") return { problem: "has an empty segment (//)" };
    if (!isUidSegmentSafe(segment)) {
      const file = /\.[a-z0-9]{1,8}$/i.test(segment);
      return {
        problem: file
          ? `ends in a file name (“${segment}”): files are served as they are, never redirected`
          : `has a segment (“${segment}”) that cannot be part of an address: use letters, digits, “-” and “_”`,
      };
    }
    segments.push(uidToSegment(segment));
  }
  const path = `/${segments.join("/")}`;
  // The site's own spellings (a listing may keep its trailing slash).
  return { path: routes.canonical(path) ?? path };
}

/**
 * A From path as the site server will match it, or in the editor's words why it cannot be one. An
 * absolute URL of the site itself (`siteUrl`) counts as its path; a query string or fragment is
 * refused rather than dropped (a redirect matches a path; a visitor's query string is passed on).
 */
export function fromPathOf(raw: string, siteUrl: string): PathResult {
  const typed = raw.trim();
  if (typed === "") return { problem: "has no From path" };
  const own = ownPath(typed, siteUrl);
  const candidate = own ?? typed;
  if (own === undefined && /^[a-z][a-z0-9+.-]*:/i.test(typed))
    return {
      problem: "is an address on another site: a redirect takes visitors away from a path of this site",
    };
  if (/[?#]/.test(candidate))
    return {
      problem:
        "holds a query string or fragment (?… or #…): a From path is a path only, and visitors' query strings are passed on to the target",
    };
  if (candidate.length > MAX_FROM_PATH_LENGTH)
    return { problem: `is longer than ${MAX_FROM_PATH_LENGTH} characters` };
  const result = canonicalPath(candidate);
  if ("problem" in result) return result;
  const { path } = result;
  const segments = path.split("/").filter(Boolean);
  const first = decodeURIComponent(segments[0] ?? "");
  if (path === "/") return { problem: "is the home page's address: a page is always served there" };
  if (segments.length > MAX_REDIRECT_SEGMENTS)
    return { problem: `has more than ${MAX_REDIRECT_SEGMENTS} segments` };
  const alias = aliasOf(path);
  if (alias !== undefined)
    return {
      problem:
        alias === "/"
          ? `is the home page's other address (${path} always goes to /)`
          : `is another address of ${alias} (${path} always goes there)`,
    };
  if (RESERVED_FIRST.has(first) && !(DOCUMENT_PREFIXES.has(first) && segments.length > 1))
    return {
      problem: `starts with /${first}, which the site uses itself (reserved: ${routes.reserved.map((uid) => `/${uid}`).join(", ")})`,
    };
  return { path };
}

/**
 * The path (and what follows it: query string, fragment) of a URL of this site: `/pricing#plans`,
 * or `https://www.example.com/pricing` when `siteUrl` is `https://www.example.com`; undefined for
 * anything else. A base path of `siteUrl` is taken off.
 */
export function ownPath(url: string, siteUrl: string): string | undefined {
  if (url.startsWith("/")) return url.startsWith("//") || url.startsWith("/\\") ? undefined : url;
  let parsed: URL;
  let site: URL;
  try {
    parsed = new URL(url);
    site = new URL(siteUrl);
  } catch {
    return undefined;
  }
  if (parsed.origin !== site.origin || parsed.username || parsed.password) return undefined;
  const base = site.pathname.replace(/\/+$/, "");
  if (parsed.pathname !== base && !parsed.pathname.startsWith(`${base}/`)) return undefined;
  return `${parsed.pathname.slice(base.length) || "/"}${parsed.search}${parsed.hash}`;
}

/**
 * The storage key of a redirect object at `path` (a route, or a From path of `fromPathOf`):
 * `old-promo/index.html`, `blog/2019/spring/index.html`, the uids decoded as page keys are. Throws
 * for a path that is neither: nothing is ever written outside the site's keys.
 */
export function redirectKey(path: string): string {
  if (routes.canonical(path) !== undefined) return routes.key(path);
  const segments: string[] = [];
  for (const segment of path.split("/").slice(1)) {
    const uid = safeDecode(segment);
    if (uid === undefined || !isUidSegmentSafe(uid) || uidToSegment(uid) !== segment)
      throw new Error(`no redirect can be stored at ${JSON.stringify(path)}: it is not a path of the site`);
    segments.push(uid);
  }
  if (!path.startsWith("/") || segments.length === 0)
    throw new Error(`no redirect can be stored at ${JSON.stringify(path)}: it is not a path of the site`);
  return `${segments.join("/")}/index.html`;
}

/**
 * The route an alias of the website's (`routes.aliases`: `/home` → `/`) answers with, for a path
 * spelled canonically; undefined for any other path.
 */
export function aliasOf(path: string): string | undefined {
  return Object.hasOwn(routes.aliases, path) ? routes.aliases[path] : undefined;
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
