import type { SliceComponentProps } from "@prismicio/react";
import type { ReactNode } from "react";
import type { ContactFormSlice } from "../../prismicio-types.d.ts";
import {
  type ContactFormProps,
  ContactFormView,
  contactFormScriptProps,
} from "../../src/browser/islands/contact-form.tsx";
import { countryOptions } from "../../src/browser/phone.ts";
import { Island } from "../../src/components/island.tsx";
import { RichText } from "../../src/components/rich-text.tsx";
import { islandId } from "../../src/lib/island-id.ts";
import type { SliceContext } from "../../src/slice-context.ts";

/** The API route the site server answers (services/site). */
export const CONTACT_ACTION = "/api/contact";

/**
 * A real form (web/src/browser/islands/contact-form.tsx): without JavaScript
 * the browser checks the required fields and posts it to the site server,
 * which answers with a result page; the island checks every field with the
 * server's own rules, formats the phone number as it is typed and sends the
 * form in place.
 */
export default function ContactForm({
  slice,
  index,
}: SliceComponentProps<ContactFormSlice, SliceContext>): ReactNode {
  const p = slice.primary;
  const id = islandId(slice, index);
  const countries = countryOptions();
  // A code the phone library does not know (or none) leaves the selector on "Country…".
  const wanted = (p.default_country ?? "").trim().toUpperCase();
  const country = countries.some((c) => c.code === wanted) ? wanted : "";
  const props: ContactFormProps = {
    id,
    action: CONTACT_ACTION,
    successMessage: p.success_message ?? "",
    defaultCountry: country,
    countries,
  };
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
            <RichText field={p.intro} headings={{ parent: heading ? 2 : 1 }} />
          </div>
        </div>
        <Island
          name="contact-form"
          id={id}
          component={ContactFormView}
          props={props}
          serialize={contactFormScriptProps}
        />
      </div>
    </section>
  );
}
