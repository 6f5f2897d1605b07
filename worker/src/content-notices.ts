import { EventEmitter } from "node:events";
import type { PrismicDocument } from "@prismicio/client";
import type { Logger } from "#logger";
import { website } from "#website";
import type { ContentNotice } from "#website/contract.ts";

const events = new EventEmitter();

/**
 * Subscribes to content notices as builds and publishes report them (one call per notice): the
 * hook for the metric `pressroom_content_notices_total{kind}` (worker-ops.ts). Returns the
 * unsubscribe function.
 */
export function onContentNotice(listener: (notice: ContentNotice) => void): () => void {
  events.on("notice", listener);
  return () => events.off("notice", listener);
}

/**
 * Says what editors should fix in the documents a build or a publish has just read (their own
 * documents: a publish passes the ones it publishes, a build every one), once each: a field the
 * page needed shown with a fallback, a slice left out (the website's `content.notices`). The page
 * is rendered all the same; `pressroom status` lists the same notices, read live.
 */
export function reportContentNotices(docs: Iterable<PrismicDocument | undefined>, logger: Logger): number {
  let count = 0;
  for (const doc of docs) if (doc) count += reportNotices(website.content.notices(doc), logger);
  return count;
}

/** reportContentNotices for notices already found (a build's render thread finds its pages'). */
export function reportNotices(notices: readonly ContentNotice[], logger: Logger): number {
  for (const notice of notices) {
    const { documentId, type, uid, field, kind } = notice;
    logger.warn({ documentId, type, uid, field, kind }, website.content.describeNotice(notice));
    events.emit("notice", notice);
  }
  return notices.length;
}
