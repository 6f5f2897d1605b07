import type { RedirectRule } from "#website/contract.ts";
import { aliasOf, canonicalPath, MAX_LOCATION_LENGTH, ownPath } from "./redirect-paths.ts";

/** Where a redirect's To field sends visitors, before chains are followed. */
export type Target =
  /**
   * A path of this site: its canonical spelling (`followable`: a redirect there may be followed,
   * a page there ends the chain) and what the editor wrote after it (`?…#…`, encoded).
   */
  | { kind: "site"; path: string; suffix: string; followable: boolean }
  /** Another site: the URL as the URL parser spells it (ASCII, as a `Location` header must be). */
  | { kind: "external"; location: string }
  | { kind: "problem"; notice: "no-target" | "target-invalid" | "target-gone"; message: string };

const WEB = /^https?:\/\//i;
/** What a browser could follow to a page: a path of this site or a web address, nothing else. */
const FOLLOWABLE = /^(?:\/(?!\/)|https?:\/\/)/i;

/**
 * Whether `url`, read as a browser reads it (backslashes as slashes: `/\evil.example` is
 * `//evil.example`, another origin), is a path of this site or a web address; one holding a
 * control character (which browsers drop, joining what it separated) is neither.
 */
function isFollowable(url: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(url)) return false;
  return FOLLOWABLE.test(url.trim().replaceAll("\\", "/"));
}

/**
 * The target of `rule`: a document's route now (`routeOf`: null or undefined when it is not
 * published or has no address), or a web address. A URL of this site (`siteUrl`, or a bare path)
 * is a site path, so a redirect to another redirect can be collapsed and a loop found. Any scheme
 * but http(s) is refused (`javascript:`, `data:`, `mailto:`).
 */
export function targetOf(
  rule: RedirectRule,
  siteUrl: string,
  routeOf: (id: string) => string | null | undefined,
): Target {
  const { to } = rule;
  if (to.kind === "none")
    return {
      kind: "problem",
      notice: "no-target",
      message: "it has no target: link a page in To, or enter a web address (https://…)",
    };
  if (to.kind === "document") {
    const route = routeOf(to.id);
    if (!route)
      return {
        kind: "problem",
        notice: "target-gone",
        message: `it links to a document (${to.id}) that is not published or has no address: nothing is redirected until it is published`,
      };
    return { kind: "site", path: route, suffix: "", followable: false };
  }
  const shown = JSON.stringify(to.url.length > 60 ? `${to.url.slice(0, 60)}…` : to.url);
  const invalid = (why: string): Target => ({
    kind: "problem",
    notice: "target-invalid",
    message: `its target (${shown}) ${why}`,
  });
  if (to.url.length > MAX_LOCATION_LENGTH) return invalid(`is longer than ${MAX_LOCATION_LENGTH} characters`);
  if (!isFollowable(to.url) || /\s/.test(to.url))
    return invalid(
      "is not a web address: only https:// and http:// addresses, or a path of this site, are followed",
    );
  const own = ownPath(to.url, siteUrl);
  if (own !== undefined) return sitePath(own) ?? invalid("is not a path of this site");
  if (!WEB.test(to.url))
    return invalid(
      "is not a web address: only https:// and http:// addresses, or a path of this site, are followed",
    );
  try {
    return { kind: "external", location: new URL(to.url).href };
  } catch {
    return invalid("is not a web address that can be read");
  }
}

/** A path of this site with what follows it, spelled as the site's routes are when it is one. */
function sitePath(own: string): Target | undefined {
  let parsed: URL;
  try {
    parsed = new URL(own, "http://site.invalid");
  } catch {
    return undefined;
  }
  if (parsed.origin !== "http://site.invalid") return undefined;
  const suffix = `${parsed.search}${parsed.hash}`;
  const canonical = canonicalPath(parsed.pathname);
  if ("path" in canonical) {
    // An alias of a route (`/home` → `/`): the chain would end there anyway.
    const path = aliasOf(canonical.path) ?? canonical.path;
    return { kind: "site", path, suffix, followable: true };
  }
  // A path the site's grammar does not describe (a file): sent as it is, never followed.
  if (parsed.pathname.startsWith("//")) return undefined;
  return { kind: "site", path: parsed.pathname, suffix, followable: false };
}

/** `location` with a hop's `?query#fragment` added as a browser following both would end up. */
export function withSuffix(location: string, suffix: string): string {
  if (suffix === "") return location;
  const hashAt = suffix.indexOf("#");
  const query = (hashAt === -1 ? suffix : suffix.slice(0, hashAt)).replace(/^\?/, "");
  const fragment = hashAt === -1 ? "" : suffix.slice(hashAt);
  const ownHash = location.indexOf("#");
  const base = ownHash === -1 ? location : location.slice(0, ownHash);
  const ownFragment = ownHash === -1 ? "" : location.slice(ownHash);
  const joined = query === "" ? base : `${base}${base.includes("?") ? "&" : "?"}${query}`;
  // The browser keeps the fragment it came with unless the new location brings its own.
  return `${joined}${ownFragment || fragment}`;
}
