import { isFilled, type LinkField, type PrismicDocument } from "@prismicio/client";
import { PrismicImage, PrismicLink, PrismicRichText } from "@prismicio/react";
import type { ReactNode } from "react";

/**
 * What every Pressroom page shows of the settings document (web/src/components/site-header.tsx,
 * site-footer.tsx, cookie-notice.tsx): logo and brand, both navigations, the address, phone and email,
 * social links, the copyright line and the cookie notice's text. No mobile menu island, no styles.
 */
type Item = { label?: string | null; link: LinkField; network?: string | null };

function Links({ items }: { items: Item[] }): ReactNode {
  return (
    <ul>
      {items
        .filter((item) => (item.label || item.network) && isFilled.link(item.link))
        .map((item, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a server render, never reordered
          <li key={index}>
            <PrismicLink field={item.link}>{item.label || item.network}</PrismicLink>
          </li>
        ))}
    </ul>
  );
}

export function SiteChrome({ settings, children }: { settings: PrismicDocument; children: ReactNode }) {
  const data = settings.data;
  return (
    <>
      <header>
        <a href="/">
          {isFilled.image(data.logo) ? <PrismicImage field={data.logo} widths={[180, 360]} alt="" /> : null}
          <span>{data.brand_name}</span>
        </a>
        <nav aria-label="Main">
          <Links items={data.header_navigation ?? []} />
        </nav>
      </header>
      <main id="main">{children}</main>
      <footer>
        <p>{data.brand_name}</p>
        <address>
          <PrismicRichText field={data.address} />
          {data.contact_phone ? <a href={`tel:${data.contact_phone}`}>{data.contact_phone}</a> : null}
          {data.contact_email ? <a href={`mailto:${data.contact_email}`}>{data.contact_email}</a> : null}
        </address>
        <nav aria-label="Explore">
          <Links items={data.footer_navigation ?? []} />
        </nav>
        <Links items={data.social_links ?? []} />
        <p>{`© ${new Date().getUTCFullYear()} ${data.copyright_holder ?? data.brand_name ?? ""}`}</p>
      </footer>
      <div role="dialog" aria-label="Cookies" hidden>
        <PrismicRichText field={data.cookie_notice_text} />
        {isFilled.link(data.cookie_policy_link) ? (
          <PrismicLink field={data.cookie_policy_link}>Cookie policy</PrismicLink>
        ) : null}
      </div>
    </>
  );
}
