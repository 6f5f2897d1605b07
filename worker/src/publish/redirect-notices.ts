import type { Logger } from "#logger";
import { describeRedirectNotice, type RedirectNotice } from "#redirects/resolve-redirects.ts";
import type { RedirectRule } from "#website/contract.ts";

/**
 * Says what editors should know of their redirects (resolve-redirects.ts): one not served (a page
 * wins, a loop, a duplicate, a target unpublished or unusable) at warn, one served otherwise than
 * it says (a chain collapsed, a target with no page) at info. A build says every redirect's; a
 * publish those of the redirect documents it publishes and of redirects linking to a document it
 * publishes (`only`). `pressroom status` and the preview show the same notices, read live.
 */
export function reportRedirectNotices(
  notices: readonly RedirectNotice[],
  logger: Logger,
  only?: ReadonlySet<string>,
): number {
  let count = 0;
  for (const notice of notices) {
    if (only && !only.has(notice.documentId)) continue;
    const { documentId, from, kind, served } = notice;
    logger[served ? "info" : "warn"]({ documentId, from, kind, served }, describeRedirectNotice(notice));
    count++;
  }
  return count;
}

/** The redirect documents a publish of `ids` concerns: those among them and those linking to one. */
export function redirectsConcerned(ids: readonly string[], rules: Iterable<RedirectRule>): Set<string> {
  const changed = new Set(ids);
  const concerned = new Set(ids);
  for (const rule of rules)
    if (rule.to.kind === "document" && changed.has(rule.to.id)) concerned.add(rule.id);
  return concerned;
}
