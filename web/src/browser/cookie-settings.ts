import { markConsent } from "./consent.ts";
import { hydrateIslands } from "./islands.ts";

/** A link to `#cookie-settings` (e.g. on the privacy page) shows the notice again to change the choice. */
export const REOPEN_HASH = "#cookie-settings";

/**
 * The notice is hidden once the visitor chose, and its island then never wakes (no React for a
 * returning visitor). This stays in the entry so that `#cookie-settings` (on arrival, or followed
 * later, in place by enhanced navigation, which dispatches `hashchange`) can show it again: the
 * choice is marked unset for this page and the notice's island wakes (islands.ts, `shown`).
 */
export function watchCookieSettings(): void {
  const reopen = () => {
    if (location.hash !== REOPEN_HASH) return;
    markConsent("unset");
    hydrateIslands();
  };
  reopen();
  addEventListener("hashchange", reopen);
}
