import { useEffect, useState } from "react";
import { type Consent, writeConsent } from "../consent.ts";
import { type CookieNoticeProps, CookieNoticeView } from "./cookie-notice.tsx";

/**
 * Shows the buttons once live. A choice is stored (consent.ts), which hides
 * the notice here and on every later page and lets the tag manager react.
 * It wakes only while the notice shows (islands.ts; `#cookie-settings` in
 * cookie-settings.ts shows it again).
 */
export default function CookieNotice(props: CookieNoticeProps) {
  const [interactive, setInteractive] = useState(false);
  useEffect(() => setInteractive(true), []);
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
