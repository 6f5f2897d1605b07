import { useEffect, useState } from "react";
import { type Consent, markConsent, writeConsent } from "../consent.ts";
import { type CookieNoticeProps, CookieNoticeView } from "./cookie-notice.tsx";

/** A link to `#cookie-settings` (e.g. on the privacy page) shows the notice again to change the choice. */
export const REOPEN_HASH = "#cookie-settings";

/**
 * Shows the buttons once live. A choice is stored (consent.ts), which hides
 * the notice here and on every later page and lets the tag manager react.
 */
export default function CookieNotice(props: CookieNoticeProps) {
  const [interactive, setInteractive] = useState(false);
  useEffect(() => {
    setInteractive(true);
    const reopen = () => {
      if (location.hash === REOPEN_HASH) markConsent("unset");
    };
    reopen();
    window.addEventListener("hashchange", reopen);
    return () => window.removeEventListener("hashchange", reopen);
  }, []);
  return <CookieNoticeView {...props} interactive={interactive} onChoose={choose} />;
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
