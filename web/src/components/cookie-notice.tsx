import { asLink, asLinkAttrs, isFilled, type RichTextField } from "@prismicio/client";
import type { ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import type { SettingsDocument } from "../content/index.ts";
import { isSafeHref } from "../lib/safe-href.ts";
import { Island } from "./island.tsx";
import { RichText } from "./rich-text.tsx";

/** What the notice shows: its text as HTML made here by RichText, and the policy link. */
export interface CookieNoticeProps {
  /** Rendered by the server's RichText (links checked, text escaped by React). */
  html: string;
  policy?: { href: string; target?: string; rel?: string };
}

/**
 * The cookie notice, when the settings have a notice text. The text is rendered to HTML here,
 * with the site's link rules. The policy link is added after the text unless the text already
 * links there (the demo's says "Our privacy policy explains the details"): one link, one line
 * less. No React in the browser: its markup is all a plain module of the entry needs to make it
 * live (web/src/browser/cookie-notice.ts), so no props are serialized beside it.
 */
export function CookieNotice({ settings }: { settings: SettingsDocument }): ReactNode {
  const { cookie_notice_text, cookie_policy_link } = settings.data;
  if (!isFilled.richText(cookie_notice_text)) return null;
  const props = (): CookieNoticeProps => {
    const made: CookieNoticeProps = { html: renderToStaticMarkup(<RichText field={cookie_notice_text} />) };
    const { href, target, rel } = asLinkAttrs(cookie_policy_link);
    if (isSafeHref(href) && !linksTo(cookie_notice_text, href))
      made.policy = { href, ...(target ? { target } : {}), ...(rel ? { rel } : {}) };
    return made;
  };
  // The same on every page of the site: rendered once per settings document (shared-markup.tsx).
  return (
    <Island
      name="cookie-notice"
      id="cookie-notice"
      component={CookieNoticeView}
      props={props}
      propsScript={false}
      shared={{ source: settings, key: "" }}
    />
  );
}

/**
 * The notice's markup. Without JavaScript there is nothing to consent to (statistics need it), so
 * it is plain text with the policy link in the page flow after the footer, its buttons `hidden`.
 * Made live (web/src/browser/cookie-notice.ts), the buttons show and the stylesheet turns it into
 * a compact banner (at most 12 % of a phone's screen) until the visitor chooses, and hides it
 * afterwards (`<html data-consent>`, see consent.ts). Accept and Decline are the same button:
 * same style, same size, side by side or stacked, neither one the default; each one's `value` is
 * the choice it stores.
 */
export function CookieNoticeView({ html, policy }: CookieNoticeProps): ReactNode {
  return (
    <aside className="cookie-notice" aria-label="Cookie notice">
      <div className="container cookie-notice__inner">
        <div className="cookie-notice__body">
          <div
            className="cookie-notice__text"
            // biome-ignore lint/security/noDangerouslySetInnerHtml: made by RichText above (React-escaped, links checked)
            dangerouslySetInnerHTML={{ __html: html }}
          />
          {policy ? (
            <a href={policy.href} target={policy.target} rel={policy.rel} className="cookie-notice__policy">
              Cookie policy
              {policy.target === "_blank" ? <span className="sr-only"> (opens in a new tab)</span> : null}
            </a>
          ) : null}
        </div>
        <div className="cookie-notice__actions" hidden>
          <button type="button" className="cookie-notice__choice" value="accepted">
            Accept
          </button>
          <button type="button" className="cookie-notice__choice" value="declined">
            Decline
          </button>
        </div>
      </div>
    </aside>
  );
}

/** Whether a hyperlink in the text already points to `href`. */
function linksTo(text: RichTextField, href: string): boolean {
  return text.some(
    (block) =>
      "spans" in block && block.spans.some((span) => span.type === "hyperlink" && asLink(span.data) === href),
  );
}
