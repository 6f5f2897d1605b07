/**
 * Redirect targets. A preview or exit link is followed by an editor's
 * browser, so whatever it redirects to must stay on this site: a path that
 * starts with one `/`, never `//host` or `/\host` (both are read as another
 * origin by browsers), with no control characters or whitespace tricks.
 */
export function safeSitePath(candidate: unknown, fallback = "/"): string {
  if (typeof candidate !== "string" || candidate.length === 0 || candidate.length > 2048) return fallback;
  if (!candidate.startsWith("/")) return fallback;
  if (candidate.startsWith("//") || candidate.startsWith("/\\")) return fallback;
  // Browsers strip tabs and newlines from URLs, so `/\t/evil.example` would become `//evil.example`.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u001f\u007f\\\s]/.test(candidate)) return fallback;
  // Resolving against a dummy origin must keep the origin: catches anything the checks above missed.
  const resolved = new URL(candidate, "http://site.invalid");
  if (resolved.origin !== "http://site.invalid") return fallback;
  // Dot segments collapse on resolution: `/a/../..//evil.example` normalizes to `//evil.example`.
  const path = `${resolved.pathname}${resolved.search}`;
  return path.startsWith("//") || path.startsWith("/\\") ? fallback : path;
}
