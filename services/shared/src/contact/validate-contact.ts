import { z } from "zod";
import { type ContactErrors, type ContactMessage, checkContactFields } from "./contact-rules.ts";

export {
  CONTACT_LIMITS,
  type ContactErrors,
  type ContactField,
  type ContactMessage,
  checkPhone,
} from "./contact-rules.ts";

/**
 * The contact form's validation on the site server (`POST /api/contact`): zod checks the shape
 * (every field text; consent may be a boolean), then the per-field rules of contact-rules.ts run,
 * the same file the browser's contact-form island imports, so a visitor sees the same messages
 * with and without JavaScript.
 */

export type ContactValidation =
  | { ok: true; trapped: false; value: ContactMessage }
  /** The honeypot was filled: answer as if it worked (bots get no signal) and deliver nothing. */
  | { ok: true; trapped: true }
  | { ok: false; errors: ContactErrors };

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

  const result = checkContactFields(raw);
  return result.ok ? { ok: true, trapped: false, value: result.value } : result;
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
