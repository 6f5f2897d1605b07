import type { Redis } from "ioredis";

export type RedisCommand = [name: string, ...args: string[]];

/** Commands built and queued at a time: what the client holds of a transaction, whatever its size. */
export const TRANSACTION_CHUNK = 500;

/**
 * Runs `commands` as one MULTI … EXEC: a reader sees all of them or none. A small transaction is one
 * pipeline on `redis`. A large one (a diff build replaces 10,000 routes' entries and dependency sets:
 * 40,000 commands) is sent on a connection of its own, `chunk` commands at a time, each chunk queued
 * by Redis before the next is built: an ioredis pipeline of 40,000 commands held ~100 MB of
 * commands, promises and strings until EXEC (a heap snapshot of a worker's diff build), the largest
 * part of its peak RSS. That connection never reconnects nor resends: if it fails before EXEC, Redis
 * discards the transaction and nothing of it is applied. A command Redis refuses fails the whole
 * transaction (EXECABORT), and an error of a command inside EXEC is thrown after it.
 */
export async function execTransaction(
  redis: Redis,
  commands: Iterable<RedisCommand>,
  chunk = TRANSACTION_CHUNK,
): Promise<void> {
  const iterator = commands[Symbol.iterator]();
  const take = () => {
    const taken: RedisCommand[] = [];
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      taken.push(next.value);
      if (taken.length >= chunk) break;
    }
    return taken;
  };
  let batch = take();
  if (batch.length < chunk) {
    throwFirstError(await redis.multi(batch).exec());
    return;
  }
  const tx = redis.duplicate({
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  tx.on("error", () => undefined); // the command that meets it rejects
  try {
    await tx.connect();
    await tx.multi({ pipeline: false });
    while (batch.length > 0) {
      await Promise.all(batch.map(([name, ...args]) => tx.call(name, ...args)));
      batch = take();
    }
    throwFirstError(await tx.exec());
  } finally {
    tx.disconnect(); // before EXEC: Redis discards the transaction
  }
}

function throwFirstError(replies: [Error | null, unknown][] | null): void {
  if (replies === null) throw new Error("the transaction was discarded");
  for (const [error] of replies) if (error) throw error;
}
