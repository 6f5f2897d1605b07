import { type ContentClientDeps, createContentClient, loadContentSchema } from "#content";

const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * The real content client, as the worker configures it, for the local content service at
 * `endpoint` (the demo repository's models): no response cache, so every request reaches the
 * service (tests see each edit and can count requests). Kept apart from local-prismic.ts so that
 * a benchmark's build process does not load the content service's code.
 */
export function localContentClient(
  endpoint: string,
  overrides: { timeoutMs?: number; rateLimitRetries?: number } = {},
  deps: Omit<ContentClientDeps, "schema"> = {},
) {
  return createContentClient(
    {
      repository: "demo",
      endpoint,
      accessToken: undefined,
      timeoutMs: 10_000,
      cacheTtlMs: 0,
      cacheMaxEntries: 10,
      rateLimitRetries: 0,
      ...overrides,
    },
    { schema: loadContentSchema(ROOT), ...deps },
  );
}
