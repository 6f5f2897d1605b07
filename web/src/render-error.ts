/**
 * A render failed. The message names the route and, once known, the document,
 * so a failed publish job says what to fix; the original error is the cause.
 * The previous object in storage stays live (the caller writes nothing).
 */
export class RenderError extends Error {
  override readonly name = "RenderError";
  constructor(
    readonly route: string,
    readonly documentId: string | undefined,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Rendering ${route}${documentId ? ` (document ${documentId})` : ""} failed: ${reason}`, { cause });
  }
}
