import type { Logger } from "#logger";
import type { StepTimer } from "./step-timer.ts";

/**
 * What the delivery that queued a publish said, when a delivery did (a reconcile round's publish
 * has none). Per job: never part of the process's context.
 */
export interface PublishJob {
  /**
   * The master ref the delivery announced (its webhook's `masterRef`): the publish asks for the
   * changed documents at it while it asks the API for the master ref, and keeps that answer only if
   * the two agree (ref-stage.ts). Never trusted alone: refs cannot be ordered, and a redelivered old
   * ref must not take the site back in time.
   */
  announcedRef?: string;
}

/** One publish's own state once it read the master ref, handed from stage to stage. */
export interface PublishRun {
  timer: StepTimer;
  /** When the publish started (epoch ms, after the lock). */
  startedAt: number;
  /** The master ref read at the start: everything is fetched and rendered at it. */
  ref: string;
  /** This publish's generation: every write carries it, so no older publish's write lands after ours (generation.ts). */
  generation: number;
  log: Logger;
  /** Unique to this publish, whatever Redis remembers (its generation restarts at 1 if Redis is lost): the edge's purge reference. */
  reference: string;
}
