import {
  type CountryCode,
  getCountryCallingCode,
  isSupportedCountry,
  parsePhoneNumberFromString,
} from "libphonenumber-js/min";

/**
 * The contact form's per-field rules and their messages, one copy for both sides: the site
 * server's `POST /api/contact` (through validate-contact.ts, which adds the zod shape check) and
 * the website's contact-form island, which imports this file directly: it is one of the engine's
 * modules for websites (FOR_WEBSITES in .dependency-cruiser.cjs) and the one exception to
 * "web/src/browser imports only web/src/browser". So it must stay browser-safe and small: no zod,
 * no node:*, no other project file; libphonenumber-js with its `min` metadata only (the same
 * metadata on both sides, so a number valid in the browser is valid on the server).
 */

export const CONTACT_LIMITS = {
  name: 200,
  /** RFC 5321's practical limit for a forward path. */
  email: 254,
  phone: 40,
  message: 5000,
  nationalDigits: { min: 2, max: 17 },
} as const;

export type ContactField = "name" | "email" | "phone" | "message" | "consent";
export type ContactErrors = Partial<Record<ContactField, string>>;

/** The form's values as text (JSON may send `consent` as a boolean). */
export interface ContactFields {
  name: string;
  email: string;
  phone: string;
  message: string;
  consent: unknown;
  /** ISO 3166 alpha-2, the phone number's country unless it starts with +<code>. */
  default_country: string;
}

/** A message that passed every rule, ready to queue. `phone` is E.164 (`+442079460958`). */
export interface ContactMessage {
  name: string;
  email: string;
  phone: string | null;
  message: string;
}

// C0 and C1 controls and DEL, plus Unicode line and paragraph separators: none belongs in a
// one-line field, and CR/LF in a name or address is how mail header injection starts.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const LINE_BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// In the message, line breaks and tabs are text; other controls are not.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const MESSAGE_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// Deliberately plain: one @, no spaces or characters that need quoting, a dotted domain. Anything
// RFC 5322 allows beyond this (quoted local parts, IP literals) is not worth the risk in a form.
const EMAIL = /^[^\s@<>()[\]\\,;:"]{1,64}@(?=.{1,253}$)[^\s@<>()[\]\\,;:"_]+\.[^\s@<>()[\]\\,;:"_.0-9]{2,}$/u;
const PHONE_CHARACTERS = /^[+\d\s().\-/]+$/;

export function checkName(value: string): string | undefined {
  const name = value.trim();
  if (name === "") return "Please enter your name.";
  if (name.length > CONTACT_LIMITS.name)
    return `Please shorten your name to ${CONTACT_LIMITS.name} characters.`;
  if (LINE_BREAKING.test(name)) return "Your name must be on one line, without special characters.";
  return undefined;
}

export function checkEmail(value: string): string | undefined {
  const email = value.trim();
  if (email === "") return "Please enter your email address.";
  if (
    LINE_BREAKING.test(email) ||
    email.length > CONTACT_LIMITS.email ||
    email.includes("..") ||
    !EMAIL.test(email)
  )
    return "Please enter a valid email address, like name@example.com.";
  return undefined;
}

export function checkMessage(value: string): string | undefined {
  const message = value.trim();
  if (message === "") return "Please enter a message.";
  if (message.length > CONTACT_LIMITS.message)
    return `Please shorten your message to ${CONTACT_LIMITS.message} characters (it has ${message.length}).`;
  if (MESSAGE_CONTROL.test(message)) return "Your message contains characters that cannot be sent.";
  return undefined;
}

/** A checked box posts "on"; JSON clients send `true`. */
export function checkConsent(value: unknown): string | undefined {
  return value === true || value === "on" || value === "true"
    ? undefined
    : "Please agree to being contacted about your message.";
}

export type PhoneCheck = { ok: true; e164: string | null } | { ok: false; error: string };

/** Names a country (ISO 3166 alpha-2) in the phone number's messages. */
export type CountryNamer = (code: string) => string;

/**
 * `country` is the form's country (ISO 3166 alpha-2); a number written with +<code> overrides it.
 * `nameOf` names the country in the message: the server's ICU by default; the browser passes the
 * names the server wrote in the country selector (nameInLabel), since its own ICU spells some
 * countries otherwise ("Hong Kong" for "Hong Kong SAR China").
 */
export function checkPhone(value: string, country: string, nameOf: CountryNamer = countryName): PhoneCheck {
  const phone = value.trim();
  if (phone === "") return { ok: true, e164: null };
  const code = country.trim().toUpperCase();
  const region: CountryCode | undefined = isSupportedCountry(code) ? code : undefined;
  const where = region ? ` for ${nameOf(region)}` : "";
  if (phone.length > CONTACT_LIMITS.phone || !PHONE_CHARACTERS.test(phone))
    return { ok: false, error: "Please enter a phone number using digits, spaces and + ( ) - only." };
  if (!phone.startsWith("+") && !phone.startsWith("00") && !region)
    return { ok: false, error: "Please start the phone number with its country code, like +44." };
  // "00" is the international prefix in most of the world; without a default country it means "+".
  const international = !region && phone.startsWith("00") ? `+${phone.slice(2)}` : phone;
  const number = parsePhoneNumberFromString(international, region ? { defaultCountry: region } : {});
  const { min, max } = CONTACT_LIMITS.nationalDigits;
  if (!number) {
    // Too long to parse at all is worth saying plainly; anything else is "not a number".
    const tooLong = phone.replace(/\D/g, "").length > max + 3;
    return {
      ok: false,
      error: tooLong
        ? `This phone number is too long${where}.`
        : `Please enter a valid phone number${where}.`,
    };
  }
  const digits = number.nationalNumber.length;
  if (digits < min) return { ok: false, error: `This phone number is too short${where}.` };
  if (digits > max) return { ok: false, error: `This phone number is too long${where}.` };
  // isValid() checks the number against its own country's plan (the default one, or +<code>'s):
  // with the min metadata that is the country's possible lengths and leading digits.
  if (!number.isValid()) {
    const own = number.country ? ` for ${nameOf(number.country)}` : where;
    return { ok: false, error: `This is not a valid phone number${own}.` };
  }
  return { ok: true, e164: number.number };
}

/** Every rule at once: the errors by field, or the message to queue. `nameOf` as for checkPhone. */
export function checkContactFields(
  fields: ContactFields,
  nameOf: CountryNamer = countryName,
): { ok: true; value: ContactMessage } | { ok: false; errors: ContactErrors } {
  const errors: ContactErrors = {};
  const name = checkName(fields.name);
  if (name) errors.name = name;
  const email = checkEmail(fields.email);
  if (email) errors.email = email;
  const phone = checkPhone(fields.phone, fields.default_country, nameOf);
  if (!phone.ok) errors.phone = phone.error;
  const message = checkMessage(fields.message);
  if (message) errors.message = message;
  const consent = checkConsent(fields.consent);
  if (consent) errors.consent = consent;
  if (Object.keys(errors).length > 0 || !phone.ok) return { ok: false, errors };
  return {
    ok: true,
    value: {
      name: fields.name.trim(),
      email: fields.email.trim(),
      phone: phone.e164,
      message: fields.message.trim().replace(/\r\n?/g, "\n"),
    },
  };
}

let names: Intl.DisplayNames | undefined;

/** The English name of a country as this runtime's ICU spells it (browsers' may differ from Node's). */
export function countryName(code: string): string {
  try {
    names ??= new Intl.DisplayNames(["en"], { type: "region" });
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * A country's entry in the contact form's selector, "United Kingdom (+44)", made by the server.
 * The browser reads the names back from these labels (nameInLabel) for its phone messages, so
 * with or without JavaScript a message names the country exactly as the selector lists it.
 */
export function countryLabel(code: CountryCode): string {
  return `${countryName(code)} (+${getCountryCallingCode(code)})`;
}

/** "United Kingdom (+44)" → "United Kingdom". */
export function nameInLabel(label: string): string {
  return label.replace(/ \(\+\d+\)$/, "");
}
