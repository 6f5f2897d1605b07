/**
 * Which uids can become a route of this site: the engine's uid grammar (what may stand in a path
 * segment, #content/uid-segments.ts) and the ONE list of names a page may not take. Used by the
 * routes (routes.ts), so the build, the preview server and the local content service's edit API
 * (through `website.routes.uidProblem`) refuse the same uids in the same words.
 */
import { uidSegmentProblem } from "#content/uid-segments.ts";

export {
  isUidSegmentSafe,
  MAX_UID_BYTES,
  MAX_UID_LENGTH,
  uidFromSegment,
  uidToSegment,
} from "#content/uid-segments.ts";

/**
 * Page uids that would take a path of the site's own: a page is served at `/{uid}`, so each of
 * these names is the first segment of a route some server answers (or answered) itself.
 */
export const RESERVED_PAGE_UIDS: readonly string[] = [
  "_pressroom", // every server's operational endpoints: /_pressroom/healthz, readyz, metrics, queues
  "api", // /api/contact (site), /api/preview and /api/exit-preview (preview server)
  "assets", // immutable script, style and image files
  "price-list", // the price-list index; price lists live under it
  "slice-simulator", // the preview server's slice simulator
  "healthz", // operational paths of earlier versions: monitors may still call them
  "readyz",
  "metrics",
  "queues",
  "webhooks", // the webhook receiver, when a proxy serves it on the site's host
];

const RESERVED = new Set(RESERVED_PAGE_UIDS);

/**
 * Why a document's uid cannot become its route, in words an editor can act on; undefined when it
 * can. `type` matters: only pages (`/{uid}`) compete with the site's own routes.
 */
export function uidProblem(type: string, uid: unknown): string | undefined {
  const problem = uidSegmentProblem(uid);
  if (problem !== undefined) return problem;
  if (type === "page" && RESERVED.has(uid as string)) {
    return `uid ${JSON.stringify(uid)} is reserved for the site's own routes (reserved: ${RESERVED_PAGE_UIDS.join(", ")})`;
  }
  return undefined;
}
