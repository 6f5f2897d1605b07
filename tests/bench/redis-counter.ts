import type { Redis } from "ioredis";

/**
 * What a private Redis did between two snapshots, from its own counters (`INFO stats commandstats`),
 * so every figure is Redis's, not a client's estimate:
 *
 * - `commands`: `total_commands_processed`, which counts every command executed: those a client sent,
 *   those inside a MULTI … EXEC (and MULTI and EXEC themselves), and those a Lua script calls
 *   (BullMQ moves jobs with scripts). Checked against redis-server 7.0: an EVAL calling 3 commands
 *   counts 4; a MULTI of 3 commands counts 5; a pipeline of 3 counts 3.
 * - `roundTrips`: `total_reads_processed`, the read events on client sockets: one per batch a client
 *   sent at once, i.e. a lone command, a pipeline or a MULTI … EXEC sent together each count 1 (same
 *   check: 1, 1 and 1; two awaited GETs, 2). A batch larger than Redis's 16 KB read buffer counts more.
 * - `scripts`: EVAL/EVALSHA/FCALL calls (each a server-side program of several commands).
 * - `perCommand`: calls by command name.
 *
 * The snapshots' own INFO (one command, one read each) are taken off; so is anything the caller
 * says it sent in between (`own`). Nothing else may use this Redis for the figures to be one system's.
 */
export interface RedisSnapshot {
  commands: number;
  reads: number;
  perCommand: Map<string, number>;
}

export interface RedisWork {
  commands: number;
  roundTrips: number;
  scripts: number;
  perCommand: Map<string, number>;
}

const SCRIPT_COMMANDS = new Set(["eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro"]);

export async function redisSnapshot(redis: Redis): Promise<RedisSnapshot> {
  const text = (await redis.call("INFO", "stats", "commandstats")) as string;
  const stat = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, "m").exec(text)?.[1] ?? Number.NaN);
  const perCommand = new Map<string, number>();
  for (const [, name, calls] of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    perCommand.set(name as string, Number(calls));
  return { commands: stat("total_commands_processed"), reads: stat("total_reads_processed"), perCommand };
}

/**
 * The work between `before` and `after`. `snapshotsBetween` counts the INFO calls made after
 * `before` up to and including `after` (1 when nothing polled in between).
 */
export function redisWork(before: RedisSnapshot, after: RedisSnapshot, snapshotsBetween = 1): RedisWork {
  const perCommand = new Map<string, number>();
  for (const [name, calls] of after.perCommand) {
    const delta = calls - (before.perCommand.get(name) ?? 0) - (name === "info" ? snapshotsBetween : 0);
    if (delta > 0) perCommand.set(name, delta);
  }
  let scripts = 0;
  for (const [name, calls] of perCommand) if (SCRIPT_COMMANDS.has(name)) scripts += calls;
  return {
    commands: after.commands - before.commands - snapshotsBetween,
    roundTrips: after.reads - before.reads - snapshotsBetween,
    scripts,
    perCommand,
  };
}

/** Adds `work` into `total` (per-command calls of many edits, for the run's breakdown). */
export function addPerCommand(total: Map<string, number>, work: RedisWork): void {
  for (const [name, calls] of work.perCommand) total.set(name, (total.get(name) ?? 0) + calls);
}
