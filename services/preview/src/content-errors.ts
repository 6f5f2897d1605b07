import { ContentApiError, ContentTimeoutError, ShuttingDownError } from "#errors";

export type ContentFailure = "preview-ended" | "unavailable" | "other";

/**
 * What a failed read means for the editor. The content API answers a preview
 * ref it no longer knows with 404 (`api_security_error` for an expired
 * preview, `api_notfound_error` for an unknown ref) or 410 (an expired ref):
 * the preview is over. 5xx, 429, timeouts and refused connections mean the
 * service is down for now, and a read cut short by the server's own shutdown is
 * alike: answer 503 and try again on the next request.
 */
export function classifyContentError(error: unknown, readingPreview: boolean): ContentFailure {
  const cause = rootCause(error);
  if (cause instanceof ContentApiError) {
    if (cause.retryable) return "unavailable";
    const refGone =
      cause.status === 410 ||
      (cause.status === 404 && (cause.type === "api_security_error" || cause.type === "api_notfound_error"));
    if (refGone && readingPreview) return "preview-ended";
    return "other";
  }
  if (cause instanceof ContentTimeoutError) return "unavailable";
  // The server is going away (SIGTERM cut the read short): come back in a moment.
  if (cause instanceof ShuttingDownError) return "unavailable";
  // undici's "fetch failed" TypeError wraps ECONNREFUSED and DNS failures.
  if (cause instanceof TypeError && /fetch failed/i.test(cause.message)) return "unavailable";
  return "other";
}

/** RenderError and @prismicio/client wrap the content error; the innermost content error decides. */
function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (
      current instanceof ContentApiError ||
      current instanceof ContentTimeoutError ||
      current instanceof ShuttingDownError
    )
      return current;
    if (current instanceof TypeError && /fetch failed/i.test(current.message)) return current;
    if (current.cause === undefined) return current;
    current = current.cause;
  }
  return current;
}
