import type { Redis } from "ioredis";

export type RedisCommand = [name: string, ...args: string[]];

/** Commands built and queued at a time: what the client holds of a transaction, whatever its size. */
export const TRANSACTION_CHUNK = 500;

/**
 * Characters of arguments built and queued at a time, whatever the number of commands: 500 HSETs of
 * 100 index entries (a large fan-out's commit) would hold 50,000 entries and their commands, 80 MB.
 */
export const TRANSACTION_CHUNK_CHARS = 2_000_000;

/**
 * A condition the transaction applies under, atomically: the integer at `key` is at most `atMost`
 * (a publish's generation: no newer publish has started). Checked under WATCH, so a change of `key`
 * between the check and EXEC discards the transaction.
 */
export interface TransactionGuard {
  key: string;
  atMost: number;
  /** Thrown (made) when the condition does not hold: nothing of the transaction was applied. */
  refused: () => Error;
}

/**
 * Runs `commands` as one MULTI … EXEC: a reader sees all of them or none. They may be made as they
 * are sent (an async iterable reading what they apply a chunk at a time). A small transaction is one
 * pipeline on `redis`. A large one (a diff build's 40,000 commands) goes on a connection of its own,
 * `chunk` commands (or TRANSACTION_CHUNK_CHARS of arguments) at a time, so the worker never holds
 * the whole pipeline in memory until EXEC.
 * That connection never reconnects nor resends: if it fails before EXEC, Redis discards the
 * transaction. A refused command fails the whole transaction (EXECABORT); an error of a command
 * inside EXEC is thrown after it. With a `guard`, it always runs on its own connection (WATCH
 * belongs to a connection) and applies only if the guard holds at EXEC.
 */
export async function execTransaction(
  redis: Redis,
  commands: Iterable<RedisCommand> | AsyncIterable<RedisCommand>,
  chunk = TRANSACTION_CHUNK,
  guard?: TransactionGuard,
): Promise<void> {
  const iterator =
    Symbol.asyncIterator in commands ? commands[Symbol.asyncIterator]() : commands[Symbol.iterator]();
  let done = false;
  const take = async () => {
    const taken: RedisCommand[] = [];
    let chars = 0;
    while (taken.length < chunk && chars < TRANSACTION_CHUNK_CHARS) {
      const next = await iterator.next();
      if (next.done) {
        done = true;
        break;
      }
      taken.push(next.value);
      for (const arg of next.value) chars += arg.length;
    }
    return taken;
  };
  let batch = await take();
  if (done && !guard) {
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
    if (guard) {
      await tx.watch(guard.key);
      if (Number((await tx.get(guard.key)) ?? "0") > guard.atMost) throw guard.refused();
    }
    await tx.multi({ pipeline: false });
    while (batch.length > 0) {
      await Promise.all(batch.map(([name, ...args]) => tx.call(name, ...args)));
      batch = done ? [] : await take();
    }
    const replies = await tx.exec();
    // EXEC answers nil when a watched key changed: the guard no longer held, nothing was applied.
    if (replies === null && guard) throw guard.refused();
    throwFirstError(replies);
  } finally {
    tx.disconnect(); // before EXEC: Redis discards the transaction
  }
}

function throwFirstError(replies: [Error | null, unknown][] | null): void {
  if (replies === null) throw new Error("the transaction was discarded");
  for (const [error] of replies) if (error) throw error;
}
