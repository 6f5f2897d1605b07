import { type CountryCode, getCountries, parsePhoneNumberFromString } from "libphonenumber-js/min";
import { countryLabel, countryName } from "#contact/contact-rules.ts";

/** One entry of the contact form's country selector. */
export interface CountryOption {
  /** ISO 3166 alpha-2, e.g. "GB". */
  code: string;
  /** e.g. "United Kingdom (+44)". */
  label: string;
}

let options: readonly CountryOption[] | undefined;

/**
 * Every country libphonenumber knows, named in English by contact-rules.ts (the names its phone
 * messages use) and sorted by name. Made on the server (once per process, frozen: the same list is
 * the key of its rendered options in the fragment cache) and rendered as the selector's options;
 * the island reads them back from there (contact-form.client.tsx), so the browser shows exactly the
 * labels the server rendered (its ICU might spell a name differently, which would be a hydration
 * mismatch, and a message naming the country otherwise than the selector and the server do) and
 * carries the list neither in its code nor in a second copy in the page.
 */
export function countryOptions(): readonly CountryOption[] {
  if (options) return options;
  options = Object.freeze(
    getCountries()
      .map((code) => ({ code, name: countryName(code) }))
      .sort((a, b) => a.name.localeCompare(b.name, "en") || a.code.localeCompare(b.code))
      .map(({ code }) => Object.freeze({ code, label: countryLabel(code) })),
  );
  return options;
}

/**
 * The number formatted for `country` (or for the +<code> it starts with) once it has a possible
 * length: "02079460958" in GB → "020 7946 0958", "+442079460958" → "+44 20 7946 0958". Until
 * then, or for text that is not a phone number, it comes back unchanged, so the visitor never
 * loses characters to the formatter. (libphonenumber's AsYouType would format from the first
 * digit but costs 6.5 KB gzip more, which the contact page's JavaScript budget cannot afford;
 * PhoneNumber's own formatting is already in the bundle for validation.)
 */
export function formatPhoneInput(value: string, country: string): string {
  if (!/^[+\d\s().\-/]*$/.test(value) || !/\d/.test(value)) return value;
  const number = parsePhoneNumberFromString(value, country ? { defaultCountry: country as CountryCode } : {});
  if (!number?.isPossible()) return value;
  return value.trim().startsWith("+") || !country ? number.formatInternational() : number.formatNational();
}
