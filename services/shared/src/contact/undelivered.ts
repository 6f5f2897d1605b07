import type { Redis } from "ioredis";
import { redisKeys } from "../jobs/catalog.ts";

/**
 * Contact messages whose delivery failed and that are not delivered since: one Redis hash entry per
 * message (`<QUEUE_PREFIX>:contact-undelivered`, id → this record), written by the worker when an
 * attempt fails and removed when one succeeds. What `pressroom status` lists, the
 * `pressroom_contact_undelivered_messages` gauge counts and the alert in docs/operations.md watches.
 * (The message itself stays in the archive in storage; Redis keeps only why it is stuck. After
 * Redis lost its data the worker queues the archived messages again, and a failure records them anew.)
 */
export interface UndeliveredMessage {
  id: string;
  receivedAt: string;
  /** Attempts made so far. */
  attempts: number;
  /** The last attempt's error, as the worker logged it. */
  error: string;
  lastAttemptAt: string;
  /** No attempt is left (or none can succeed, e.g. no mail server configured): a person must act. */
  givenUp: boolean;
}

export async function recordUndelivered(
  redis: Redis,
  prefix: string,
  message: UndeliveredMessage,
): Promise<void> {
  await redis.hset(redisKeys(prefix).contactUndelivered, message.id, JSON.stringify(message));
}

export async function recordDelivered(redis: Redis, prefix: string, id: string): Promise<void> {
  await redis.hdel(redisKeys(prefix).contactUndelivered, id);
}

/** Every undelivered message, oldest first. */
export async function readUndelivered(redis: Redis, prefix: string): Promise<UndeliveredMessage[]> {
  const all = await redis.hvals(redisKeys(prefix).contactUndelivered);
  return all
    .flatMap((value) => {
      try {
        return [JSON.parse(value) as UndeliveredMessage];
      } catch {
        return [];
      }
    })
    .sort((a, b) => a.receivedAt.localeCompare(b.receivedAt) || a.id.localeCompare(b.id));
}
