import { asLink, asLinkAttrs, isFilled, type RichTextField } from "@prismicio/client";
import type { ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { type CookieNoticeProps, CookieNoticeView } from "../browser/islands/cookie-notice.tsx";
import type { SettingsDocument } from "../content/index.ts";
import { isSafeHref } from "../lib/safe-href.ts";
import { Island } from "./island.tsx";
import { RichText } from "./rich-text.tsx";

/**
 * The cookie notice island (islands/cookie-notice.tsx), when the settings have
 * a notice text. The text is rendered to HTML here, with the site's link
 * rules, because the browser has no rich text renderer. The policy link is
 * added after the text unless the text already links there (the demo's says
 * "Our privacy policy explains the details"): one link, one line less.
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
      shared={{ source: settings, key: "" }}
    />
  );
}

/** Whether a hyperlink in the text already points to `href`. */
function linksTo(text: RichTextField, href: string): boolean {
  return text.some(
    (block) =>
      "spans" in block && block.spans.some((span) => span.type === "hyperlink" && asLink(span.data) === href),
  );
}
