import type { ReactNode } from "react";
import type { Consent } from "../consent.ts";

/** The serialized props: the notice text as HTML made on the server, and the policy link. */
export interface CookieNoticeProps {
  /** Rendered by the server's RichText (links checked, text escaped by React). */
  html: string;
  policy?: { href: string; target?: string; rel?: string };
}

export interface CookieNoticeViewProps extends CookieNoticeProps {
  /** false (server, first client render): the buttons stay hidden, since they need JavaScript. */
  interactive?: boolean;
  onChoose?: (consent: Consent) => void;
}

/**
 * The cookie notice. Without JavaScript there is nothing to consent to
 * (statistics need it), so the server's notice is plain text with the policy
 * link in the page flow after the footer. The live island shows the buttons;
 * the stylesheet turns it into a compact banner (at most 12 % of a phone's
 * screen) until the visitor chooses and hides it afterwards (`<html
 * data-consent>`, see consent.ts). Accept and Decline are the same button:
 * same style, same size, side by side or stacked, neither one the default.
 */
export function CookieNoticeView({
  html,
  policy,
  interactive = false,
  onChoose,
}: CookieNoticeViewProps): ReactNode {
  return (
    <aside className="cookie-notice" aria-label="Cookie notice">
      <div className="container cookie-notice__inner">
        <div className="cookie-notice__body">
          <div
            className="cookie-notice__text"
            // biome-ignore lint/security/noDangerouslySetInnerHtml: made on the server by RichText (React-escaped, links checked); @prismicio/client cannot come to the browser
            dangerouslySetInnerHTML={{ __html: html }}
          />
          {policy ? (
            <a href={policy.href} target={policy.target} rel={policy.rel} className="cookie-notice__policy">
              Cookie policy
              {policy.target === "_blank" ? <span className="sr-only"> (opens in a new tab)</span> : null}
            </a>
          ) : null}
        </div>
        <div className="cookie-notice__actions" hidden={!interactive}>
          <button type="button" className="cookie-notice__choice" onClick={() => onChoose?.("accepted")}>
            Accept
          </button>
          <button type="button" className="cookie-notice__choice" onClick={() => onChoose?.("declined")}>
            Decline
          </button>
        </div>
      </div>
    </aside>
  );
}
