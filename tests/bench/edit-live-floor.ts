import { pino } from "pino";
import { createSiteStore, sha256 } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import { renderRouteWithClient } from "#web/render.ts";
import { keyForRoute } from "#web/routes.ts";
import { localContentClient } from "../support/content-client.ts";
import type { ContentService } from "./edit-live-content.ts";

/**
 * The floor of one edit, as bench:publish-latency measures it: the route's documents fetched
 * through the product's content client at the current master ref (read before the clock starts),
 * rendered by the product's renderer and written by the folder store, in this process, with
 * React's production build (the npm script sets NODE_ENV=production). No queue, no index, no lock.
 */
export async function floorMeter(content: ContentService, dir: string) {
  if (process.env.NODE_ENV !== "production")
    throw new Error(
      "Run with NODE_ENV=production (npm run bench:edit-live does): React's development build is ~5x slower",
    );
  const client = localContentClient(content.endpoint, { timeoutMs: 30_000, rateLimitRetries: 3 });
  const store = createSiteStore({ url: `file://${dir}`, s3Endpoint: undefined, s3Region: "us-east-1" });
  const { assets } = await buildSiteAssets();
  const logger = pino({ level: "silent" });
  return async (route: string): Promise<{ ms: number; requests: number }> => {
    const ref = await client.fetchMasterRef();
    const before = await content.requests();
    const started = performance.now();
    const result = await renderRouteWithClient(route, {
      client,
      ref,
      siteUrl: "https://www.example.com",
      assets,
      mode: "production",
      logger,
    });
    await store.put(keyForRoute(route), result.html, {
      contentType: result.contentType,
      cacheControl: "no-cache",
      contentHash: sha256(result.html),
    });
    const ms = performance.now() - started;
    return { ms, requests: (await content.requests()) - before };
  };
}
