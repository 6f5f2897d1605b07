/**
 * Which preview tokens this server accepts. A token is used as the content
 * API's `ref`, so only tokens minted by the configured repository are taken:
 * anything else is refused before a single request leaves the server (no
 * fetch of an attacker's URL, no probing of internal hosts).
 */
export type TokenRule =
  /** A real Prismic repository: `https://<repo>.prismic.io/previews/<session>…`. */
  | { kind: "prismic"; host: string }
  /** The local content service: its own origin + `/previews/<session>…`. */
  | { kind: "local"; origin: string };

export type TokenCheck = { ok: true; token: string } | { ok: false; reason: string };

const MAX_TOKEN_LENGTH = 2048;
/** Prismic sessions look like `Z9x…:Z9y…`; the local service uses url-safe ids. */
const SESSION = /^[A-Za-z0-9_.~:-]{1,200}$/;

/** `<repo>.cdn.prismic.io` or `<repo>.prismic.io` endpoints mean Prismic itself; anything else is local. */
export function tokenRuleFor(endpoint: string, repository: string): TokenRule {
  const url = new URL(endpoint);
  const prismicHosts = [`${repository}.cdn.prismic.io`, `${repository}.prismic.io`];
  if (url.protocol === "https:" && prismicHosts.includes(url.hostname.toLowerCase()))
    return { kind: "prismic", host: `${repository}.prismic.io`.toLowerCase() };
  return { kind: "local", origin: url.origin };
}

/** True when the configured repository is Prismic's (the toolbar exists only there). */
export const isRealRepository = (rule: TokenRule): boolean => rule.kind === "prismic";

export function checkPreviewToken(raw: unknown, rule: TokenRule): TokenCheck {
  if (typeof raw !== "string" || raw === "") return { ok: false, reason: "The preview link has no token." };
  if (raw.length > MAX_TOKEN_LENGTH) return { ok: false, reason: "The preview token is too long." };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "The preview token is not a URL." };
  }
  if (url.username || url.password || url.hash)
    return { ok: false, reason: "The preview token is not a preview URL." };
  if (rule.kind === "prismic") {
    if (url.protocol !== "https:" || url.port !== "" || url.hostname.toLowerCase() !== rule.host)
      return { ok: false, reason: `The preview token does not come from the repository ${rule.host}.` };
  } else if (url.origin !== rule.origin) {
    return {
      ok: false,
      reason: `The preview token does not come from the content service at ${rule.origin}.`,
    };
  }
  const match = /^\/previews\/([^/]+)$/.exec(url.pathname);
  if (!match?.[1] || !SESSION.test(match[1]))
    return { ok: false, reason: "The preview token is not a preview session URL." };
  return { ok: true, token: raw };
}
