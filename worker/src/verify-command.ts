import { Redis } from "ioredis";
import type { PublisherConfig } from "#config";
import { createContentClient, loadContentSchema } from "#content";
import { createEdgePurger } from "#edge";
import { redisKeys } from "#jobs/catalog.ts";
import type { Logger } from "#logger";
import { createSiteStore } from "#storage";
import { website } from "#website";
import { withLock } from "./publish/lock.ts";
import { connectOrUnreachable, masterRefOrUnreachable } from "./reachable.ts";
import { type Verification, verifyStorage } from "./verify.ts";

/**
 * `pressroom verify`: reads every stored object, compares its bytes with what the master ref
 * renders, repairs what differs. Under the publish lock, so no publish writes meanwhile.
 */
export async function verifyCommand(
  config: PublisherConfig,
  logger: Logger,
): Promise<{ text: string; result: Verification }> {
  // Both services are asked first, as `plan` and `status` do, so that a wrong REDIS_URL or
  // PRISMIC_ENDPOINT is one line before the publish lock is taken or storage is read.
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
  let connected = false;
  // connect rejects with the first error; later ones are retried, and said.
  redis.on("error", (error) => connected && logger.warn({ err: error }, "Redis connection error; retrying"));
  const client = createContentClient(config.prismic, {
    routes: website.routes.resolver,
    schema: loadContentSchema(website.projectDir),
    logger,
  });
  try {
    await connectOrUnreachable(redis, config.redisUrl);
    connected = true;
    await masterRefOrUnreachable(client, config.prismic.endpoint);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  const store = createSiteStore(config.storage, { logger });
  // What verify repairs is purged at the edge too; a purge that fails is owed (the worker re-sends).
  const edge = createEdgePurger(config.edge?.purgeUrl, { logger });
  try {
    const { assets } = await website.assets.build();
    const ctx = {
      client,
      store,
      redis,
      queuePrefix: config.queuePrefix,
      siteUrl: config.siteUrl,
      assets,
      logger,
      ...(edge ? { edge } : {}),
    };
    const result = await withLock(
      redis,
      redisKeys(config.queuePrefix).publishLock,
      () => verifyStorage(ctx),
      {
        ...(config.lockMs === undefined ? {} : { ttlMs: config.lockMs }),
      },
    );
    const lines = [
      `Verified ${result.checked} stored objects against master ref ${result.ref}:`,
      result.repaired.length === 0
        ? "  every object matches what the ref renders"
        : `  ${result.repaired.length} differed or were missing, now repaired:`,
      ...result.repaired.map((key) => `    ${key}`),
      ...(result.deleted > 0 ? [`  ${result.deleted} orphaned objects deleted`] : []),
    ];
    return { text: lines.join("\n"), result };
  } finally {
    await edge?.close();
    await store.close();
    redis.disconnect();
  }
}
