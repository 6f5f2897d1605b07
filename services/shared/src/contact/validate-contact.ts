import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from "libphonenumber-js";
import { z } from "zod";

/**
 * The contact form's rules, shared by the site server (`POST /api/contact`) and, later, the
 * browser island: pure and browser-safe (zod and libphonenumber-js only, no node:*), so a
 * visitor sees the same messages with and without JavaScript.
 */

export const CONTACT_LIMITS = {
  name: 200,
  /** RFC 5321's practical limit for a forward path. */
  email: 254,
  phone: 40,
  message: 5000,
  nationalDigits: { min: 2, max: 17 },
} as const;

/** A message that passed every rule, ready to queue. `phone` is E.164 (`+442079460958`). */
export interface ContactMessage {
  name: string;
  email: string;
  phone: string | null;
  message: string;
}

export type ContactField = "name" | "email" | "phone" | "message" | "consent";
export type ContactErrors = Partial<Record<ContactField, string>>;

export type ContactValidation =
  | { ok: true; trapped: false; value: ContactMessage }
  /** The honeypot was filled: answer as if it worked (bots get no signal) and deliver nothing. */
  | { ok: true; trapped: true }
  | { ok: false; errors: ContactErrors };

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

/** Form values arrive as strings ("on" for a checked box); JSON may send real booleans. */
const inputSchema = z.object({
  name: z.string(),
  email: z.string(),
  phone: z.string(),
  message: z.string(),
  consent: z.unknown(),
  website: z.string(),
  default_country: z.string(),
});

export type ContactInput = Partial<Record<keyof z.input<typeof inputSchema>, unknown>>;

export function validateContact(input: unknown): ContactValidation {
  const given = (typeof input === "object" && input !== null ? input : {}) as ContactInput;
  // A field left out (or null in JSON) is an empty one.
  const filled = Object.fromEntries(
    Object.keys(inputSchema.shape).map((key) => [
      key,
      given[key as keyof ContactInput] ?? (key === "consent" ? undefined : ""),
    ]),
  );
  const parsed = inputSchema.safeParse(filled);
  if (!parsed.success) return { ok: false, errors: fieldTypeErrors(parsed.error.issues) };
  const raw = parsed.data;
  if (raw.website.trim() !== "") return { ok: true, trapped: true };

  const errors: ContactErrors = {};
  const name = raw.name.trim();
  if (name === "") errors.name = "Please enter your name.";
  else if (name.length > CONTACT_LIMITS.name)
    errors.name = `Please shorten your name to ${CONTACT_LIMITS.name} characters.`;
  else if (LINE_BREAKING.test(name))
    errors.name = "Your name must be on one line, without special characters.";

  const email = raw.email.trim();
  if (email === "") errors.email = "Please enter your email address.";
  else if (
    LINE_BREAKING.test(email) ||
    email.length > CONTACT_LIMITS.email ||
    email.includes("..") ||
    !EMAIL.test(email)
  )
    errors.email = "Please enter a valid email address, like name@example.com.";

  const phone = checkPhone(raw.phone.trim(), raw.default_country.trim().toUpperCase());
  if (!phone.ok) errors.phone = phone.error;

  const message = raw.message.trim();
  if (message === "") errors.message = "Please enter a message.";
  else if (message.length > CONTACT_LIMITS.message)
    errors.message = `Please shorten your message to ${CONTACT_LIMITS.message} characters (it has ${message.length}).`;
  else if (MESSAGE_CONTROL.test(message))
    errors.message = "Your message contains characters that cannot be sent.";

  if (!(raw.consent === true || raw.consent === "on" || raw.consent === "true"))
    errors.consent = "Please agree to being contacted about your message.";

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    trapped: false,
    value: { name, email, phone: phone.ok ? phone.e164 : null, message: message.replace(/\r\n?/g, "\n") },
  };
}

type PhoneCheck = { ok: true; e164: string | null } | { ok: false; error: string };

/** `country` is the form's default (ISO 3166 alpha-2); a number written with +<code> overrides it. */
export function checkPhone(phone: string, country: string): PhoneCheck {
  if (phone === "") return { ok: true, e164: null };
  const region: CountryCode | undefined = isSupportedCountry(country) ? country : undefined;
  const where = region ? ` for ${countryName(region)}` : "";
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
  // isValid() checks the number against its own country's plan (the default one, or +<code>'s).
  if (!number.isValid()) {
    const own = number.country ? ` for ${countryName(number.country)}` : where;
    return { ok: false, error: `This is not a valid phone number${own}.` };
  }
  return { ok: true, e164: number.number };
}

function countryName(code: CountryCode): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "region" }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** A JSON client that sent a number or an object where text belongs: say which field. */
function fieldTypeErrors(issues: readonly { path: readonly PropertyKey[] }[]): ContactErrors {
  const errors: ContactErrors = {};
  for (const issue of issues) {
    const field = String(issue.path[0] ?? "");
    if (field === "name" || field === "email" || field === "phone" || field === "message")
      errors[field] = "Please enter text here.";
  }
  if (Object.keys(errors).length === 0) errors.message = "The form could not be read; please try again.";
  return errors;
}
