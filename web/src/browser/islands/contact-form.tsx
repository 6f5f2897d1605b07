import {
  type FocusEvent,
  type FormEvent,
  type PointerEvent,
  type ReactNode,
  type Ref,
  useContext,
} from "react";
import { CONTACT_LIMITS, type ContactErrors } from "#contact/contact-rules.ts";
import { type FragmentCache, FragmentCacheContext } from "../fragment-cache.ts";
import type { CountryOption } from "../phone.ts";

/** What the contact form is rendered from, on the server and in the browser. */
export interface ContactFormProps {
  /** Prefix of every field id (unique on the page). */
  id: string;
  /** Where the form posts: the site server's `POST /api/contact`. */
  action: string;
  successMessage: string;
  /** ISO 3166 alpha-2 from the slice, or "" (then numbers must start with +<code>). */
  defaultCountry: string;
  /** The country selector's options, labelled on the server (see phone.ts). */
  countries: readonly CountryOption[];
}

/**
 * What the server serializes for the contact-form island (plain JSON): everything but the
 * countries, which the island reads from the selector's options beside it
 * (contact-form.client.tsx), so that a page does not carry the list twice (10 KB of JSON a form).
 */
export type ContactFormIslandProps = Omit<ContactFormProps, "countries">;

/** The island's props script: `props` without the countries (island.tsx `serialize`). */
export function contactFormScriptProps({
  countries: _countries,
  ...props
}: ContactFormProps): ContactFormIslandProps {
  return props;
}

/**
 * The country selector's options: as elements, or on the server with a fragment cache in context
 * (a build, a publish) as markup rendered once per list and default country, since the same ~245
 * options appear on every page with a form. The bytes are the same either way
 * (tests/integration/shared-markup.test.ts), and the browser hydrates the options it finds.
 */
function countrySelectContent(
  cache: FragmentCache | undefined,
  countries: readonly CountryOption[],
  defaultCountry: string,
): { children: ReactNode } | { dangerouslySetInnerHTML: { __html: string } } {
  const options = () => (
    <>
      {defaultCountry === "" ? <option value="">Country…</option> : null}
      {countries.map((country) => (
        <option key={country.code} value={country.code}>
          {country.label}
        </option>
      ))}
    </>
  );
  const html = cache?.inner(countries, `country-options:${defaultCountry}`, () => (
    <select defaultValue={defaultCountry}>{options()}</select>
  ));
  return html === undefined ? { children: options() } : { dangerouslySetInnerHTML: { __html: html } };
}

/** Errors by field, plus `form` for what belongs to no field. */
export type FormErrors = ContactErrors & { form?: string };

export interface ContactFormState {
  errors?: FormErrors;
  status?: { kind: "success" | "error" | "sending"; text: string } | null;
  sending?: boolean;
  formRef?: Ref<HTMLFormElement>;
  onSubmit?: (event: FormEvent<HTMLFormElement>) => void;
  onBlur?: (event: FocusEvent<HTMLFormElement>) => void;
  onInput?: (event: FormEvent<HTMLFormElement>) => void;
  onChange?: (event: FormEvent<HTMLFormElement>) => void;
  onPointerDown?: (event: PointerEvent<HTMLFormElement>) => void;
}

/**
 * The contact form, rendered the same by the server (no state: a plain form that posts without
 * JavaScript, the browser checking the required fields) and by the island (with its state:
 * inline errors, the status line, the send in progress). `website` is a honeypot: people never
 * see it, bots fill it in. The country selector is named `default_country`, the field the
 * server reads the phone number's country from, so both paths agree.
 */
export function ContactFormView({
  id,
  action,
  defaultCountry,
  countries,
  errors = {},
  status = null,
  sending = false,
  formRef,
  onSubmit,
  onBlur,
  onInput,
  onChange,
  onPointerDown,
}: ContactFormProps & ContactFormState): ReactNode {
  const cache = useContext(FragmentCacheContext);
  const invalid = (field: keyof ContactErrors) =>
    errors[field]
      ? { "aria-invalid": true as const, "aria-describedby": `${id}-${field}-error` }
      : { "aria-invalid": undefined, "aria-describedby": undefined };
  return (
    <form
      className="contact-form"
      method="post"
      action={action}
      data-default-country={defaultCountry}
      ref={formRef}
      onSubmit={onSubmit}
      onBlur={onBlur}
      onInput={onInput}
      onChange={onChange}
      onPointerDown={onPointerDown}
    >
      <div className="contact-form__row">
        <Field id={`${id}-name`} label="Name" error={errors.name}>
          <input
            className="field__input"
            id={`${id}-name`}
            name="name"
            type="text"
            autoComplete="name"
            maxLength={CONTACT_LIMITS.name}
            required
            {...invalid("name")}
          />
        </Field>
        <Field id={`${id}-email`} label="Email" error={errors.email}>
          <input
            className="field__input"
            id={`${id}-email`}
            name="email"
            type="email"
            autoComplete="email"
            maxLength={CONTACT_LIMITS.email}
            required
            {...invalid("email")}
          />
        </Field>
      </div>
      <Field id={`${id}-phone`} label="Phone" hint="optional" error={errors.phone}>
        <div className="phone-field">
          <label className="sr-only" htmlFor={`${id}-country`}>
            Country of the phone number
          </label>
          <select
            className="field__input phone-field__country"
            id={`${id}-country`}
            name="default_country"
            defaultValue={defaultCountry}
            {...countrySelectContent(cache, countries, defaultCountry)}
          />
          <input
            className="field__input phone-field__number"
            id={`${id}-phone`}
            name="phone"
            type="tel"
            autoComplete="tel"
            inputMode="tel"
            maxLength={CONTACT_LIMITS.phone}
            {...invalid("phone")}
          />
        </div>
      </Field>
      <Field id={`${id}-message`} label="Message" error={errors.message}>
        <textarea
          className="field__input"
          id={`${id}-message`}
          name="message"
          rows={6}
          maxLength={CONTACT_LIMITS.message}
          required
          {...invalid("message")}
        />
      </Field>
      <div className="contact-form__consent">
        <input id={`${id}-consent`} name="consent" type="checkbox" required {...invalid("consent")} />
        <label htmlFor={`${id}-consent`}>I agree to be contacted about this message.</label>
        {errors.consent ? <FieldError id={`${id}-consent-error`} text={errors.consent} /> : null}
      </div>
      <div className="contact-form__trap" aria-hidden="true">
        <label htmlFor={`${id}-website`}>Leave this field empty</label>
        <input id={`${id}-website`} name="website" type="text" tabIndex={-1} autoComplete="off" />
      </div>
      <div className="contact-form__footer">
        <button type="submit" className="button" disabled={sending}>
          {sending ? "Sending…" : "Send message"}
        </button>
        <p
          className={`contact-form__status${status ? ` contact-form__status--${status.kind}` : ""}`}
          role="status"
          aria-live="polite"
        >
          {status?.text}
        </p>
      </div>
    </form>
  );
}

function Field({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string;
  label: string;
  hint?: string;
  error?: string | undefined;
  children: ReactNode;
}): ReactNode {
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
        {hint ? <span className="field__hint">{` (${hint})`}</span> : null}
      </label>
      {children}
      {error ? <FieldError id={`${id}-error`} text={error} /> : null}
    </div>
  );
}

function FieldError({ id, text }: { id: string; text: string }): ReactNode {
  return (
    <p className="field__error" id={id}>
      {text}
    </p>
  );
}
