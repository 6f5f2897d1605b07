import { parsePhoneNumberFromString } from "libphonenumber-js";

export interface FormattedPhone {
  /** As shown: international format, e.g. "+1 503 555 0142". */
  text: string;
  /** `tel:` URI in E.164, e.g. "tel:+15035550142". */
  href: string;
}

const cache = new Map<string, FormattedPhone | null>();
const MAX_CACHED = 100;

/**
 * The phone number as visitors read and dial it. International format for
 * every country (the editors store E.164): unambiguous for visitors calling
 * from abroad, and the same spelling the demo content uses in running text.
 * Unparseable input yields null (the caller shows the raw text unlinked).
 * Parsing costs tens of microseconds; layouts show the same number on every page.
 */
export function formatPhone(raw: string, defaultCountry?: string): FormattedPhone | null {
  const key = `${defaultCountry ?? ""}|${raw}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  // biome-ignore lint/suspicious/noExplicitAny: libphonenumber's CountryCode is a closed union; unknown codes just fail to parse
  const phone = parsePhoneNumberFromString(raw, defaultCountry as any);
  const result = phone ? { text: phone.formatInternational(), href: `tel:${phone.number}` } : null;
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, result);
  return result;
}
