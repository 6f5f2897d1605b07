import type { SliceComponentProps } from "@prismicio/react";
import type { ReactNode } from "react";
import type { ContactFormSlice } from "../../prismicio-types.d.ts";
import { Island } from "../../src/components/island.tsx";
import { RichText } from "../../src/components/rich-text.tsx";
import { islandId } from "../../src/lib/island-id.ts";
import type { SliceContext } from "../../src/slice-context.ts";

/** What the contact-form island is started with. */
export interface ContactFormIslandProps {
  successMessage: string;
  defaultCountry: string;
}

/** The API route the site server answers (services/site). */
export const CONTACT_ACTION = "/api/contact";

/**
 * A real form: without JavaScript the browser validates the required fields
 * and posts it; the island later submits it in place and shows the success
 * message. `website` is a honeypot: people never see it, bots fill it in.
 */
export default function ContactForm({
  slice,
  index,
}: SliceComponentProps<ContactFormSlice, SliceContext>): ReactNode {
  const p = slice.primary;
  const id = islandId(slice, index);
  const country = /^[A-Za-z]{2}$/.test(p.default_country ?? "")
    ? (p.default_country as string).toUpperCase()
    : "";
  const props: ContactFormIslandProps = { successMessage: p.success_message ?? "", defaultCountry: country };
  const heading = p.heading?.trim();
  return (
    <section
      className="slice contact"
      data-slice-type={slice.slice_type}
      data-slice-variation={slice.variation}
      aria-labelledby={heading ? `${id}-heading` : undefined}
    >
      <div className="container contact__inner">
        <div className="contact__intro">
          {heading ? (
            <h2 className="section-heading" id={`${id}-heading`}>
              {heading}
            </h2>
          ) : null}
          <div className="prose">
            <RichText field={p.intro} />
          </div>
        </div>
        <Island name="contact-form" id={id} props={props}>
          <form className="contact-form" method="post" action={CONTACT_ACTION} data-default-country={country}>
            <input type="hidden" name="default_country" value={country} />
            <div className="contact-form__row">
              <Field id={`${id}-name`} label="Name">
                <input
                  className="field__input"
                  id={`${id}-name`}
                  name="name"
                  type="text"
                  autoComplete="name"
                  maxLength={200}
                  required
                />
              </Field>
              <Field id={`${id}-email`} label="Email">
                <input
                  className="field__input"
                  id={`${id}-email`}
                  name="email"
                  type="email"
                  autoComplete="email"
                  maxLength={320}
                  required
                />
              </Field>
            </div>
            <Field id={`${id}-phone`} label="Phone" hint="optional">
              <input
                className="field__input"
                id={`${id}-phone`}
                name="phone"
                type="tel"
                autoComplete="tel"
                maxLength={40}
              />
            </Field>
            <Field id={`${id}-message`} label="Message">
              <textarea
                className="field__input"
                id={`${id}-message`}
                name="message"
                rows={6}
                maxLength={5000}
                required
              />
            </Field>
            <div className="contact-form__consent">
              <input id={`${id}-consent`} name="consent" type="checkbox" required />
              <label htmlFor={`${id}-consent`}>I agree to be contacted about this message.</label>
            </div>
            <div className="contact-form__trap" aria-hidden="true">
              <label htmlFor={`${id}-website`}>Leave this field empty</label>
              <input id={`${id}-website`} name="website" type="text" tabIndex={-1} autoComplete="off" />
            </div>
            <div className="contact-form__footer">
              <button type="submit" className="button">
                Send message
              </button>
            </div>
            <p className="contact-form__status" role="status" aria-live="polite" />
          </form>
        </Island>
      </div>
    </section>
  );
}

function Field({
  id,
  label,
  hint,
  children,
}: {
  id: string;
  label: string;
  hint?: string;
  children: ReactNode;
}): ReactNode {
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
        {hint ? <span className="field__hint">{` (${hint})`}</span> : null}
      </label>
      {children}
    </div>
  );
}
