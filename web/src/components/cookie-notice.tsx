import { isFilled } from "@prismicio/client";
import type { ReactNode } from "react";
import type { SettingsDocument } from "../content/index.ts";
import { AppLink } from "./app-link.tsx";
import { Island } from "./island.tsx";
import { RichText } from "./rich-text.tsx";

/**
 * The cookie notice, server-rendered in the page flow after the footer: with
 * no JavaScript there is nothing to consent to (statistics need JS), so it is
 * a plain notice with the policy link and covers nothing. The island later
 * turns it into a dismissible banner, shows the buttons (hidden until then)
 * and hides it once the visitor has chosen.
 */
export function CookieNotice({ settings }: { settings: SettingsDocument }): ReactNode {
  const { cookie_notice_text, cookie_policy_link } = settings.data;
  if (!isFilled.richText(cookie_notice_text)) return null;
  return (
    <Island name="cookie-notice" id="cookie-notice">
      <aside className="cookie-notice" aria-label="Cookie notice">
        <div className="container cookie-notice__inner">
          <div className="cookie-notice__text">
            <RichText field={cookie_notice_text} />
          </div>
          <div className="cookie-notice__actions">
            {isFilled.link(cookie_policy_link) ? (
              <AppLink field={cookie_policy_link} className="cookie-notice__policy">
                Cookie policy
              </AppLink>
            ) : null}
            <button type="button" className="button button--small" data-cookie-choice="accept" hidden>
              Accept
            </button>
            <button
              type="button"
              className="button button--small button--quiet"
              data-cookie-choice="decline"
              hidden
            >
              Decline
            </button>
          </div>
        </div>
      </aside>
    </Island>
  );
}
