import type { Redis } from "ioredis";
import type { ContentClient } from "#content";
import { UnreachableError } from "#errors";
import { redactUrl } from "#redact-url";

/**
 * The master ref, or one line saying the content API does not answer and which variable names it:
 * a one-off command's first request, where a wrong or missing PRISMIC_ENDPOINT shows.
 */
export async function masterRefOrUnreachable(client: ContentClient, endpoint: string): Promise<string> {
  try {
    return await client.fetchMasterRef();
  } catch (error) {
    throw new UnreachableError(
      `the content API does not answer at ${redactUrl(endpoint)} (${reason(error)}); PRISMIC_ENDPOINT names it`,
    );
  }
}

/** Connects a `lazyConnect` client, or says in one line that Redis does not answer at REDIS_URL. */
export async function connectOrUnreachable(
  redis: Redis,
  redisUrl: string,
  facts: () => Promise<string[]> = async () => [],
): Promise<void> {
  try {
    await redis.connect();
  } catch (error) {
    throw new UnreachableError(
      `Redis is unreachable at ${redactUrl(redisUrl)} (${reason(error)}); REDIS_URL names it`,
      await facts(),
    );
  }
}

/** Why a request failed: undici's "fetch failed" says nothing, its cause (ECONNREFUSED, ENOTFOUND …) does. */
export function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === "string") return `${(error as Error).message}: ${cause.code}`;
  return (error as Error).message;
}
