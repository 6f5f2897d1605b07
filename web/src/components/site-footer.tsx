import { isFilled } from "@prismicio/client";
import type { ReactNode } from "react";
import type { SettingsDocument } from "../content/index.ts";
import { copyrightYear } from "../lib/copyright-year.ts";
import { formatPhone } from "../lib/format-phone.ts";
import { AppLink } from "./app-link.tsx";
import { RichText, richTextComponents } from "./rich-text.tsx";
import { SharedMarkup } from "./shared-markup.tsx";
import { NETWORK_NAMES, SocialIcon } from "./social-icon.tsx";

// Address paragraphs are lines of one postal address, not paragraphs of prose.
const addressComponents = richTextComponents({
  paragraph: ({ children }) => <span className="address__line">{children}</span>,
});

export function SiteFooter({ settings }: { settings: SettingsDocument }): ReactNode {
  const year = copyrightYear();
  // The same on every page of the year: rendered once per settings document (shared-markup.tsx).
  return (
    <SharedMarkup as="footer" className="site-footer" source={settings} cacheKey={String(year)}>
      {() => <FooterContent settings={settings} year={year} />}
    </SharedMarkup>
  );
}

function FooterContent({ settings, year }: { settings: SettingsDocument; year: number }): ReactNode {
  const data = settings.data;
  const brand = data.brand_name ?? "";
  const phone = data.contact_phone ? formatPhone(data.contact_phone) : null;
  const email = data.contact_email?.trim();
  const links = data.footer_navigation.filter((item) => item.label && isFilled.link(item.link));
  const socials = data.social_links.filter((item) => item.network && isFilled.link(item.link));
  const holder = data.copyright_holder ?? brand;
  return (
    <>
      <div className="container site-footer__grid">
        <div className="site-footer__contact">
          <p className="site-footer__brand">{brand}</p>
          <address className="address">
            <RichText field={data.address} components={addressComponents} />
            {phone ? (
              <a className="address__line address__contact" href={phone.href}>
                {phone.text}
              </a>
            ) : data.contact_phone ? (
              <span className="address__line">{data.contact_phone}</span>
            ) : null}
            {email ? (
              <a className="address__line address__contact" href={`mailto:${email}`}>
                {email}
              </a>
            ) : null}
          </address>
        </div>
        {links.length > 0 ? (
          <nav className="site-footer__nav" aria-labelledby="footer-explore">
            <h2 className="site-footer__heading" id="footer-explore">
              Explore
            </h2>
            <ul className="site-footer__links">
              {links.map((item, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: rendered once on the server and never reordered; the index keeps keys unique when editors repeat an entry
                <li key={`${index}-${item.label}`}>
                  <AppLink field={item.link}>{item.label}</AppLink>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        {socials.length > 0 ? (
          <div className="site-footer__social">
            <h2 className="site-footer__heading">Follow us</h2>
            <ul className="social-links">
              {socials.map((item) => {
                const network = item.network as string;
                const name = NETWORK_NAMES[network] ?? network;
                return (
                  <li key={network}>
                    <AppLink field={item.link} className="social-link" aria-label={`${brand} on ${name}`}>
                      <SocialIcon network={network} />
                    </AppLink>
                  </li>
                );
              })}
            </ul>
          </div>
        ) : null}
      </div>
      <div className="container site-footer__bottom">
        <p className="copyright">{`© ${year} ${holder}`}</p>
      </div>
    </>
  );
}
