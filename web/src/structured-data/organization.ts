import { asLink, isFilled } from "@prismicio/client";
import type { ImageObject, LocalBusiness, Organization, PostalAddress, WebSite } from "schema-dts";
import type { SettingsDocument } from "../content/index.ts";
import { absoluteImageUrl, absoluteWebUrl } from "../lib/absolute-web-url.ts";
import { formatPhone } from "../lib/format-phone.ts";
import { brandOf } from "../lib/page-meta.ts";
import { absoluteUrl } from "../lib/site-url.ts";

/** The organization's node id: other nodes refer to it (`publisher`, `offeredBy`). */
export function organizationId(siteUrl: string): string {
  return absoluteUrl(siteUrl, "/#organization");
}

/**
 * Who runs the site, from the settings document: name, url, logo, telephone (E.164, as dialled),
 * email, the postal address and the social profiles as `sameAs`. Google requires no property of
 * an Organization and recommends these (developers.google.com/search/docs/appearance/structured-data/organization).
 * A `LocalBusiness` (the settings' business type) must have `address` and `name`
 * (…/structured-data/local-business): without the address parts it stays an Organization.
 * Every field may be absent (settings published before the fields existed): absent fields are
 * left out. Undefined when there is not even a brand name to call it by.
 */
export function organizationNode(
  settings: SettingsDocument,
  siteUrl: string,
): Organization | LocalBusiness | undefined {
  const data = settings.data;
  const name = brandOf(settings);
  if (!name) return undefined;
  const address = postalAddress(settings);
  const logo = logoOf(settings, siteUrl);
  const phone = data.contact_phone ? formatPhone(data.contact_phone) : null;
  const email = data.contact_email?.trim();
  const sameAs = (data.social_links ?? []).flatMap((item) => {
    const url = isFilled.link(item.link) ? absoluteWebUrl(siteUrl, asLink(item.link)) : undefined;
    return url && !url.startsWith(siteUrl) ? [url] : [];
  });
  const common = {
    "@id": organizationId(siteUrl),
    name,
    url: absoluteUrl(siteUrl, "/"),
    ...(logo ? { logo } : {}),
    ...(phone ? { telephone: phone.href.slice("tel:".length) } : {}),
    ...(email && /^[^\s@<>"]+@[^\s@<>"]+$/.test(email) ? { email } : {}),
    ...(address ? { address } : {}),
    ...(sameAs.length > 0 ? { sameAs } : {}),
  };
  const type = (data.business_type as string | null | undefined) ?? "Organization";
  if (type === "LocalBusiness" && address) {
    // Google's local business examples give an image; the logo stands for the business.
    return { "@type": "LocalBusiness", ...common, ...(logo ? { image: logo } : {}) };
  }
  return { "@type": "Organization", ...common };
}

/** The site itself, for Google's site name (…/appearance/site-names: `name` and `url`, on the home page). */
export function websiteNode(settings: SettingsDocument, siteUrl: string): WebSite | undefined {
  const name = brandOf(settings);
  if (!name) return undefined;
  return {
    "@type": "WebSite",
    "@id": absoluteUrl(siteUrl, "/#website"),
    name,
    url: absoluteUrl(siteUrl, "/"),
    publisher: { "@id": organizationId(siteUrl) },
  };
}

/** Google uses a logo of at least 112×112 px (…/structured-data/organization, `logo`); a smaller one is left out. */
export const MIN_LOGO_PX = 112;

function logoOf(settings: SettingsDocument, siteUrl: string): ImageObject | undefined {
  const logo = settings.data.logo;
  if (!isFilled.image(logo)) return undefined;
  const { width, height } = logo.dimensions;
  if (width < MIN_LOGO_PX || height < MIN_LOGO_PX) return undefined;
  const url = absoluteImageUrl(siteUrl, logo.url);
  return url ? { "@type": "ImageObject", url } : undefined;
}

/** The address parts editors filled in (street and city at least), as a PostalAddress. */
function postalAddress(settings: SettingsDocument): PostalAddress | undefined {
  const data = settings.data;
  const part = (value: string | null | undefined) => value?.trim() || undefined;
  const street = part(data.address_street);
  const locality = part(data.address_locality);
  if (!street || !locality) return undefined;
  const region = part(data.address_region);
  const postalCode = part(data.address_postal_code);
  const country = part(data.address_country)?.toUpperCase();
  return {
    "@type": "PostalAddress",
    streetAddress: street,
    addressLocality: locality,
    ...(region ? { addressRegion: region } : {}),
    ...(postalCode ? { postalCode } : {}),
    ...(country ? { addressCountry: country } : {}),
  };
}
