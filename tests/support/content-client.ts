import type { PrismicConfig } from "#config";
import { type ContentClientDeps, createContentClient, loadContentSchema } from "#content";
import { website } from "#website";

const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * The content client's configuration for the demo repository at `endpoint`, with `loadConfig`'s
 * defaults (10 s timeout, a 5 s response cache of 1,000 answers, 3 retries on 429) unless `overrides`
 * says otherwise: what a worker started with only PRISMIC_ENDPOINT set would use.
 */
export function contentConfig(endpoint: string, overrides: Partial<PrismicConfig> = {}): PrismicConfig {
  return {
    repository: "demo",
    endpoint,
    accessToken: undefined,
    timeoutMs: 10_000,
    cacheTtlMs: 5_000,
    cacheMaxEntries: 1_000,
    rateLimitRetries: 3,
    ...overrides,
  };
}

/**
 * The real content client, as the worker configures it, for the local content service at
 * `endpoint` (the demo repository's models): no response cache and no retry on 429 unless
 * `overrides` says otherwise, so every request reaches the service (tests see each edit and can
 * count requests). Kept apart from local-prismic.ts so that a benchmark's build process does not
 * load the content service's code.
 */
export function localContentClient(
  endpoint: string,
  overrides: Partial<PrismicConfig> = {},
  deps: Partial<Omit<ContentClientDeps, "schema">> = {},
) {
  return createContentClient(
    contentConfig(endpoint, { cacheTtlMs: 0, cacheMaxEntries: 10, rateLimitRetries: 0, ...overrides }),
    { routes: website.routes.resolver, schema: loadContentSchema(ROOT), ...deps },
  );
}
