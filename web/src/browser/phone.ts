import {
  type CountryCode,
  getCountries,
  getCountryCallingCode,
  parsePhoneNumberFromString,
} from "libphonenumber-js/min";

/** One entry of the contact form's country selector. */
export interface CountryOption {
  /** ISO 3166 alpha-2, e.g. "GB". */
  code: string;
  /** e.g. "United Kingdom (+44)". */
  label: string;
}

let options: CountryOption[] | undefined;

/**
 * Every country libphonenumber knows, named by `Intl.DisplayNames` in English and sorted by name.
 * Called on the server (once per process) and serialized into the island's props, so the browser
 * shows exactly the labels the server rendered (the browser's ICU might spell a name differently,
 * which would be a hydration mismatch) and does not carry the list in its code.
 */
export function countryOptions(): CountryOption[] {
  if (options) return options;
  const names = new Intl.DisplayNames(["en"], { type: "region" });
  options = getCountries()
    .map((code) => ({ code, name: names.of(code) ?? code }))
    .sort((a, b) => a.name.localeCompare(b.name, "en") || a.code.localeCompare(b.code))
    .map(({ code, name }) => ({ code, label: `${name} (+${getCountryCallingCode(code)})` }));
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
