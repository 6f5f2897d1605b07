import { type Consent, writeConsent } from "./consent.ts";
import { afterLoad } from "./idle.ts";

/**
 * The cookie notice, made live without React: a first visit is most visits, and loading React only
 * to un-hide two buttons would be the page's largest long task. Its server markup
 * (web/src/components/cookie-notice.tsx) is complete, the buttons `hidden` because without JavaScript
 * there is nothing to consent to. Live, the buttons show and `data-hydrated` turns the notice into
 * the banner; a choice is stored (consent.ts), hiding it on every later page, and tells the tag
 * manager (CONSENT_EVENT).
 */
const NOTICE = '[data-island="cookie-notice"]';

/** Started by the entry: the notice on this page, and the one a preview refresh swaps in. */
export function watchCookieNotice(): void {
  showCookieNotice();
  // preview-refresh.ts replaced <body>: the new notice is server markup again.
  document.addEventListener("pressroom:preview-refreshed", showCookieNotice);
}

/**
 * While the visitor has not chosen (`<html data-consent="unset">`: a first visit, or
 * `#cookie-settings`, cookie-settings.ts), the notice goes live once the page has loaded and the
 * browser is idle: a fixed banner moves nothing, and the page's own content paints first. A notice
 * already live just shows again (the stylesheet follows `data-consent`). Enhanced navigation
 * leaves the notice in place, so it stays live across pages swapped in.
 */
export function showCookieNotice(): void {
  if (document.documentElement.dataset.consent !== "unset") return;
  const notice = document.querySelector<HTMLElement>(NOTICE);
  if (!notice || notice.dataset.hydrated !== undefined) return;
  afterLoad(() => wake(notice));
}

function wake(notice: HTMLElement): void {
  const actions = notice.querySelector<HTMLElement>(".cookie-notice__actions");
  if (!notice.isConnected || notice.dataset.hydrated !== undefined || !actions) return;
  actions.addEventListener("click", (event) => {
    const choice = (event.target as Element).closest<HTMLButtonElement>(
      "button.cookie-notice__choice",
    )?.value;
    if (choice === "accepted" || choice === "declined") choose(choice);
  });
  // Both in one task: the banner never shows without its buttons (no reflow, no layout shift).
  actions.hidden = false;
  notice.dataset.hydrated = "";
}

/**
 * Stores the choice, which hides the notice. Keyboard focus was on the button just pressed: it
 * goes to the page's main content instead of falling back to the start of the document.
 */
function choose(consent: Consent): void {
  const hadFocus = document.activeElement?.closest(".cookie-notice") != null;
  writeConsent(consent);
  if (hadFocus) document.getElementById("main")?.focus({ preventScroll: true });
}
