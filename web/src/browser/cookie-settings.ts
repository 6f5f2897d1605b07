import { markConsent } from "./consent.ts";
import { showCookieNotice } from "./cookie-notice.ts";

/** A link to `#cookie-settings` (e.g. on the privacy page) shows the notice again to change the choice. */
export const REOPEN_HASH = "#cookie-settings";

/**
 * The notice is hidden once the visitor chose, and then never made live. `#cookie-settings` (on
 * arrival, or followed later, in place by enhanced navigation, which dispatches `hashchange`)
 * shows it again: the choice is marked unset for this page and the notice goes live, or shows
 * again if it already was (cookie-notice.ts).
 */
export function watchCookieSettings(): void {
  const reopen = () => {
    if (location.hash !== REOPEN_HASH) return;
    markConsent("unset");
    showCookieNotice();
  };
  reopen();
  addEventListener("hashchange", reopen);
}
