import type { BatchOutcome } from "./context.ts";
import type { DependencyIndex, IndexedRoute } from "./dependency-index.ts";
import { dependencyPool } from "./dependency-pool.ts";
import type { StagedWrites } from "./fan-out-entries.ts";
import type { Planned } from "./plan-stage.ts";

/**
 * What a publish's renders wrote and found gone, gathered batch by batch for the stages after them
 * (redirects, deletes, the commit, the purge), with each route's previous index entry.
 *
 * The entries held until the commit (previous and new, at most a few hundred routes' outside a large
 * fan-out, whose entries stay in Redis: `staged`) share their dependency strings instead of each
 * holding its own copies (dependency-pool.ts).
 */
export class PublishWrites {
  readonly written = new Map<string, IndexedRoute>();
  /** The plan's deletes, then routes whose document turned out to be gone when rendered. */
  readonly deleted: string[];
  readonly failed: NonNullable<BatchOutcome["failed"]> = [];
  readonly counts = { rendered: 0, written: 0, unchanged: 0, deleted: 0, batches: 0, listed: 0 };
  /** Every route written or deleted needs its previous entry: the commit replaces its dependencies. */
  readonly previous: Map<string, IndexedRoute>;
  readonly #pooled = dependencyPool();

  /** Starts from the plan: its deletes, and the entries the index read before anything was fetched (most of those needed). */
  constructor(
    private readonly index: DependencyIndex,
    planned: Pick<Planned, "prior" | "plan">,
  ) {
    this.previous = new Map([...planned.prior.entries].map(([route, entry]) => [route, this.#pooled(entry)]));
    this.deleted = [...planned.plan.delete.keys()];
  }

  /** Applied to a child job's outcome as it arrives, while the others are still rendering. */
  readonly keep = (outcome: BatchOutcome): BatchOutcome => {
    for (const [, entry] of outcome.written) this.#pooled(entry);
    return outcome;
  };

  /**
   * A large fan-out's: what its child jobs wrote stays in Redis until the commit reads it a chunk at
   * a time (fan-out-entries.ts); `written` then stays empty.
   */
  staged?: StagedWrites;

  add(outcome: BatchOutcome): void {
    for (const [route, entry] of outcome.written) this.written.set(route, entry);
    this.staged?.add(outcome.unwritten ?? [], outcome.also ?? []);
    this.deleted.push(...outcome.gone);
    this.failed.push(...(outcome.failed ?? []));
    this.counts.rendered += outcome.rendered;
    this.counts.written += outcome.changed;
    this.counts.unchanged += outcome.unchanged;
    this.counts.listed += outcome.listed ?? 0;
  }

  /** Whether this publish wrote `route` (rendered it, its document there). */
  isWritten(route: string): boolean {
    return this.written.has(route) || this.staged?.has(route) === true;
  }

  /** Every route this publish wrote. */
  *writtenRoutes(): Generator<string> {
    yield* this.written.keys();
    if (this.staged) yield* this.staged.routes();
  }

  /** Reads the previous entries of `routes` the index has not answered yet. */
  async readPrevious(routes: Iterable<string>): Promise<void> {
    const missing = [...routes].filter((route) => !this.previous.has(route));
    for (const [route, entry] of await this.index.routes(missing))
      this.previous.set(route, this.#pooled(entry));
  }
}
