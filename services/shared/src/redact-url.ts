/**
 * A URL safe to log or put in an error message: no password (Redis, SMTP URLs) and no Prismic
 * `access_token` query parameter.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "redacted";
    if (parsed.searchParams.has("access_token")) parsed.searchParams.set("access_token", "[redacted]");
    return parsed.href;
  } catch {
    return "(unparsable URL)";
  }
}
