import type { Queue } from "bullmq";
import { jobCatalog } from "#jobs/catalog.ts";
import { REMOVE_ON_COMPLETE, REMOVE_ON_FAIL } from "#jobs/fail-fast-queue.ts";
import type { Logger } from "#logger";
import type { SiteStore } from "#storage";
import { readArchive } from "./deliver.ts";

/** Archives older than this are not queued again (a message undeliverable for a week needs a person). */
const REPLAY_DAYS = 7;

/**
 * Queues again every archived contact message not marked delivered whose job Redis no longer
 * holds: the site archives each message before it answers 202, so after Redis lost its data (or
 * at a worker's start) nothing accepted is lost. The job id is the message id, so a message whose
 * job still exists is not queued twice; delivery skips a message its archive marks delivered.
 */
export async function replayContactArchives(
  store: SiteStore,
  queue: Queue,
  logger: Logger,
  now = Date.now(),
): Promise<number> {
  const spec = jobCatalog.contact;
  let queued = 0;
  for await (const key of store.keys(".pressroom/contact/")) {
    if (!key.endsWith(".json")) continue;
    const archive = await readArchive(store, key);
    if (!archive || archive.delivered) continue;
    if (now - Date.parse(archive.receivedAt) > REPLAY_DAYS * 86_400_000) continue;
    const parsed = spec.schema.safeParse(archive);
    if (!parsed.success) continue;
    const jobId = spec.jobId(parsed.data);
    if (await queue.getJob(jobId)) continue;
    await queue.add("contact", parsed.data, {
      jobId,
      attempts: spec.attempts,
      backoff: { ...spec.backoff },
      removeOnComplete: REMOVE_ON_COMPLETE,
      removeOnFail: REMOVE_ON_FAIL,
    });
    queued++;
  }
  if (queued > 0) logger.warn({ queued }, "contact messages archived but not in Redis: queued again");
  return queued;
}
