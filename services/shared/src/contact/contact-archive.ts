import { CACHE_CONTROL } from "../site/manifest.ts";
import { type SiteStore, sha256 } from "../storage/index.ts";

/** Where a contact message is archived: under `.pressroom/`, which the site server never serves. */
export function contactArchiveKey(payload: { id: string; receivedAt: string }): string {
  const [year, month] = payload.receivedAt.slice(0, 7).split("-");
  return `.pressroom/contact/${year}/${month}/${payload.id}.json`;
}

/**
 * Archives an accepted message before the site answers 202: the archive in storage, not Redis, is
 * what makes acceptance durable. If Redis loses the job, the worker finds the undelivered archive
 * (worker/src/contact/replay.ts) and queues it again. Storage failing here answers 503.
 */
export async function writeContactArchive(
  store: SiteStore,
  archive: { id: string; receivedAt: string } & Record<string, unknown>,
): Promise<void> {
  const body = `${JSON.stringify(archive, null, 2)}\n`;
  await store.put(contactArchiveKey(archive), body, {
    contentType: "application/json",
    cacheControl: CACHE_CONTROL.metadata,
    contentHash: sha256(body),
  });
}
