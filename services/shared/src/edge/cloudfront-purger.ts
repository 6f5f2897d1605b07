import type { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import type { Logger } from "../logger.ts";
import { type EdgePurger, PurgeError, type PurgeReceipt, type PurgeRequest } from "./edge-purger.ts";
import { NOT_FOUND_KEY } from "./surrogate-keys.ts";

/**
 * CloudFront: one `CreateInvalidation` (POST /2020-05-31/distribution/{Id}/invalidation, an XML
 * `InvalidationBatch`) per purge, with the exact paths. CloudFront's documented limits
 * (Developer Guide, "Concurrent invalidation request maximum"): 3,000 file paths in progress per
 * distribution, and 15 wildcard paths; `TooManyInvalidationsInProgress` beyond, which fails the
 * purge and so is retried with backoff. A purge of more than CLOUDFRONT_MAX_PATHS paths (a third
 * of the in-progress budget: three such publishes may overlap) is sent as `/*` instead, one
 * wildcard path, and the log says so. Cannot run here: tests/integration/cloudfront-purge.test.ts
 * checks each request against the API reference (a contract test, not a CloudFront run).
 */
export const CLOUDFRONT_MAX_PATHS = 1_000;
const EVERYTHING = "/*";

export interface CloudFrontPurgerOptions {
  /** A client made elsewhere (kept open on close). */
  client?: CloudFrontClient;
  /** Another endpoint than CloudFront's (the contract test's server). */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  maxPaths?: number;
  logger?: Logger;
}

/**
 * The paths that invalidate a route: its URL (`/about`) and, for CloudFront in front of the
 * bucket, the key a viewer-request function rewrites it to (`/about/index.html`): AWS's guide
 * asks for both URIs when a function changes the URI. Undefined when only `/*` reaches the route's
 * copies: the not-found page is cached under every URL that answered 404. The 500 and 503 pages
 * are never cached (`no-store`): nothing to invalidate.
 */
export function cloudFrontPaths(routes: readonly string[]): string[] | undefined {
  const paths = new Set<string>();
  for (const route of routes) {
    if (route === NOT_FOUND_KEY) return undefined;
    if (!route.startsWith("/")) continue;
    paths.add(route);
    const last = route.slice(route.lastIndexOf("/") + 1);
    if (route.endsWith("/")) paths.add(`${route}index.html`);
    else if (!last.includes(".")) paths.add(`${route}/index.html`);
  }
  return [...paths];
}

export function createCloudFrontPurger(
  distributionId: string,
  options: CloudFrontPurgerOptions = {},
): EdgePurger {
  const description = `cloudfront://${distributionId}`;
  const maxPaths = options.maxPaths ?? CLOUDFRONT_MAX_PATHS;
  let loading:
    | Promise<{
        client: CloudFrontClient;
        Command: typeof import("@aws-sdk/client-cloudfront").CreateInvalidationCommand;
      }>
    | undefined;
  const sdk = () => {
    loading ??= import("@aws-sdk/client-cloudfront").then(
      ({ CloudFrontClient, CreateInvalidationCommand }) => ({
        client:
          options.client ??
          new CloudFrontClient({
            // CloudFront is global; its API is signed for us-east-1.
            region: "us-east-1",
            ...(options.endpoint ? { endpoint: options.endpoint } : {}),
            ...(options.credentials ? { credentials: options.credentials } : {}),
            maxAttempts: 3,
            requestHandler: { connectionTimeout: 5_000, socketTimeout: 30_000 },
          }),
        Command: CreateInvalidationCommand,
      }),
    );
    return loading;
  };

  return {
    description,
    async purge(request: PurgeRequest): Promise<PurgeReceipt> {
      const exact = request.everything ? undefined : cloudFrontPaths(request.routes);
      if (exact?.length === 0) return { scope: "routes", requests: 0, detail: "nothing to invalidate" };
      let paths = exact ?? [EVERYTHING];
      if (paths.length > maxPaths) {
        options.logger?.warn(
          { edge: description, paths: paths.length, maxPaths },
          `invalidating /* instead of ${paths.length} paths (more than ${maxPaths})`,
        );
        paths = [EVERYTHING];
      } else if (!exact && !request.everything) {
        options.logger?.info(
          { edge: description },
          "invalidating /*: the not-found page is cached under every URL that answered 404",
        );
      }
      const { client, Command } = await sdk();
      try {
        const answer = await client.send(
          new Command({
            DistributionId: distributionId,
            InvalidationBatch: {
              CallerReference: request.reference,
              Paths: { Quantity: paths.length, Items: paths },
            },
          }),
        );
        const id = answer.Invalidation?.Id ?? "unknown";
        options.logger?.debug({ edge: description, paths: paths.length, invalidation: id }, "edge purged");
        return {
          scope: paths[0] === EVERYTHING ? "everything" : "routes",
          requests: 1,
          detail: `invalidation ${id} (${answer.Invalidation?.Status ?? "accepted"})`,
        };
      } catch (error) {
        const name = (error as Error).name;
        throw new PurgeError(
          `CloudFront refused or did not take the invalidation of ${paths.length} path${paths.length === 1 ? "" : "s"} on ${distributionId}: ${name}: ${(error as Error).message}`,
          description,
          { cause: error },
        );
      }
    },
    async close() {
      if (loading && !options.client) (await loading).client.destroy();
    },
  };
}
