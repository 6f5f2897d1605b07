import { Redis } from "ioredis";
import type { PublisherConfig } from "#config";
import { createEdgePurger, type EdgePurger, PURGE_URL_FIX } from "#edge";
import type { Logger } from "#logger";
import {
  addPendingPurges,
  clearPendingPurges,
  EVERYTHING,
  type PendingPurges,
  readPendingPurges,
} from "./publish/pending-purges.ts";
import { purgeEverything } from "./publish/purge-plan.ts";

type EdgeCommandConfig = Pick<PublisherConfig, "edge" | "redisUrl" | "queuePrefix">;

/** EX_USAGE and EX_CONFIG from sysexits.h, as bin/cli.ts. */
const EXIT_USAGE = 64;
const EXIT_CONFIG = 78;

/**
 * `pressroom purge <route…>` and `pressroom purge --all`: the operator's purge, through the same
 * driver the worker uses. What it purges is no longer owed: entries of `<prefix>:edge-pending` it
 * covers are cleared (Redis unreachable: the purge still goes out; the worker re-sends them).
 */
export async function purgeCommand(
  config: EdgeCommandConfig,
  args: readonly string[],
  logger: Logger,
): Promise<{ text: string; code: number }> {
  const all = args.includes("--all");
  const routes = args.filter((arg) => arg !== "--all");
  const bad = routes.filter((route) => !/^\/|^\d{3}$/.test(route));
  if ((all ? routes.length > 0 : routes.length === 0) || bad.length > 0)
    return {
      code: EXIT_USAGE,
      text: `pressroom purge: give routes as the site's paths (/, /about, /sitemap.xml, or 404 for every not-found answer), or --all alone${bad.length > 0 ? `; not a route: ${bad.join(", ")}` : ""}`,
    };
  const edge = createEdgePurger(config.edge?.purgeUrl, { logger });
  if (!edge)
    return {
      code: EXIT_CONFIG,
      text: `pressroom purge: CDN_PURGE_URL is not set: no edge to purge. ${PURGE_URL_FIX}`,
    };
  try {
    const owed = await withRedis(config, (redis) => readPendingPurges(redis, config.queuePrefix));
    const receipt = await edge.purge({ routes, everything: all, reference: `manual-${Date.now()}` });
    const covered = owed && coveredBy(owed, all ? EVERYTHING : routes);
    const cleared = covered
      ? await withRedis(config, (redis) => clearPendingPurges(redis, config.queuePrefix, covered))
      : undefined;
    const what =
      receipt.scope === "everything"
        ? "everything"
        : `${routes.length} route${routes.length === 1 ? "" : "s"}`;
    return {
      code: 0,
      text: [
        `Purged ${what} at ${edge.description}: ${receipt.detail} (${receipt.requests} request${receipt.requests === 1 ? "" : "s"})`,
        ...(cleared ? [`  ${cleared} owed purge${cleared === 1 ? "" : "s"} no longer waiting`] : []),
        ...(owed === undefined
          ? ["  (Redis unreachable: owed purges not updated; the worker sends them again)"]
          : []),
      ].join("\n"),
    };
  } catch (error) {
    return { code: 1, text: `pressroom purge: ${(error as Error).message}` };
  } finally {
    await edge.close();
  }
}

/**
 * After `pressroom build`: purges what the build changed (everything when that is most of the
 * site). Not acknowledged: recorded as owed in Redis for the worker to send again, when Redis
 * answers. Returns the line the command prints; `failed` when the purge is neither done nor owed.
 */
export async function purgeAfterBuild(
  config: EdgeCommandConfig,
  changed: { routes: readonly string[]; siteRoutes: number },
  logger: Logger,
): Promise<{ line: string; failed: boolean } | undefined> {
  const edge: EdgePurger | undefined = createEdgePurger(config.edge?.purgeUrl, { logger });
  if (!edge) return undefined;
  const everything = purgeEverything(changed.routes.length, changed.siteRoutes);
  if (changed.routes.length === 0)
    return { line: `Edge ${edge.description}: nothing changed, nothing purged`, failed: false };
  try {
    const receipt = await edge.purge({
      routes: changed.routes,
      everything,
      reference: `build-${Date.now()}`,
    });
    return {
      line: `Edge ${edge.description}: purged ${receipt.scope === "everything" ? "everything" : `${changed.routes.length} route${changed.routes.length === 1 ? "" : "s"}`} (${receipt.detail})`,
      failed: false,
    };
  } catch (error) {
    const message = (error as Error).message;
    const recorded = await withRedis(config, (redis) =>
      addPendingPurges(redis, config.queuePrefix, everything ? EVERYTHING : changed.routes, {
        at: Date.now(),
        edge: edge.description,
        error: message,
      }).then(() => true),
    );
    return {
      line: recorded
        ? `Edge ${edge.description} did not acknowledge the purge (${message}): owed, the worker sends it again (pressroom status)`
        : `Edge ${edge.description} did not acknowledge the purge (${message}) and Redis is unreachable: run pressroom purge --all once the edge answers`,
      failed: !recorded,
    };
  } finally {
    await edge.close();
  }
}

/** The owed entries a purge of `routes` (or EVERYTHING) makes unnecessary. */
function coveredBy(owed: PendingPurges, routes: readonly string[] | typeof EVERYTHING): PendingPurges {
  const wanted = routes === EVERYTHING ? undefined : new Set(routes);
  const entries = new Map([...owed.entries].filter(([route]) => wanted === undefined || wanted.has(route)));
  return { ...owed, entries, everything: wanted === undefined && owed.everything };
}

/** Runs `task` on a short-lived Redis connection; undefined when Redis does not answer within 2 s. */
async function withRedis<T>(
  config: EdgeCommandConfig,
  task: (redis: Redis) => Promise<T>,
): Promise<T | undefined> {
  const redis = new Redis(config.redisUrl, {
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    lazyConnect: true,
  });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    return await task(redis);
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}
