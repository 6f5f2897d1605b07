import {
  asText,
  isFilled,
  type LinkField,
  type PrismicDocument,
  type RichTextField,
} from "@prismicio/client";
import { PrismicImage, PrismicLink, PrismicRichText, type SliceComponentProps } from "@prismicio/react";
import type { ReactNode } from "react";

/**
 * One component per shared slice of Pressroom's models (web/slices/*), showing the same fields as
 * Pressroom's components, in plainer markup: no islands (the carousel and the contact form are not
 * hydrated), no class names beyond a few, imgix srcsets from PrismicImage's defaults.
 */
export interface PeerSliceContext {
  priceLists: Map<string, PrismicDocument>;
}

// biome-ignore lint/suspicious/noExplicitAny: slices come from the API untyped (no codegen in the peer)
type Props = SliceComponentProps<any, PeerSliceContext>;

function Cta({ label, link, className }: { label: string | null; link: LinkField; className: string }) {
  return label && isFilled.link(link) ? (
    <PrismicLink field={link} className={className}>
      {label}
    </PrismicLink>
  ) : null;
}

function Hero({ slice }: Props): ReactNode {
  const p = slice.primary;
  return (
    <section className="hero">
      {p.eyebrow ? <p className="eyebrow">{p.eyebrow}</p> : null}
      <PrismicRichText field={p.heading} />
      <PrismicRichText field={p.body} />
      <Cta label={p.primary_cta_label} link={p.primary_cta_link} className="button" />
      <Cta label={p.secondary_cta_label} link={p.secondary_cta_link} className="button secondary" />
      {isFilled.image(p.image) ? <PrismicImage field={p.image} widths="defaults" /> : null}
    </section>
  );
}

function TextSection({ slice }: Props): ReactNode {
  const p = slice.primary;
  return (
    <section className="text-section">
      <PrismicRichText field={p.heading} />
      <PrismicRichText field={p.body} />
      {/* Pressroom never inserts oEmbed HTML either: a link to what is embedded. */}
      {isFilled.embed(p.embed) && p.embed.embed_url ? (
        <p>
          <a href={p.embed.embed_url}>{p.embed.title ?? p.embed.embed_url}</a>
        </p>
      ) : null}
    </section>
  );
}

function Carousel({ slice }: Props): ReactNode {
  const items = (slice.items ?? []) as { image: never; caption: RichTextField; link: LinkField }[];
  return (
    <section className="carousel" data-autoplay={slice.primary.autoplay ? "" : undefined}>
      {slice.primary.heading ? <h2>{slice.primary.heading}</h2> : null}
      <ul>
        {items.map((item, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a server render, never reordered
          <li key={index}>
            {isFilled.image(item.image) ? <PrismicImage field={item.image} widths="defaults" /> : null}
            <PrismicRichText field={item.caption} />
            {isFilled.link(item.link) ? <PrismicLink field={item.link}>More</PrismicLink> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Faq({ slice }: Props): ReactNode {
  const items = (slice.items ?? []) as { question: string | null; answer: RichTextField }[];
  return (
    <section className="faq">
      {slice.primary.heading ? <h2>{slice.primary.heading}</h2> : null}
      {items.map((item, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a server render, never reordered
        <details key={index}>
          <summary>{item.question}</summary>
          <PrismicRichText field={item.answer} />
        </details>
      ))}
    </section>
  );
}

function PriceListTable({ slice, context }: Props): ReactNode {
  const list = context.priceLists.get(slice.primary.price_list?.id ?? "");
  if (!list) return null;
  const rows = (list.data.rows ?? []) as Record<string, string | number | boolean | null>[];
  const currency = String(list.data.currency ?? "EUR");
  const price = new Intl.NumberFormat("en", { style: "currency", currency });
  return (
    <section className="price-list">
      <h2>{slice.primary.heading || asText(list.data.title) || list.uid}</h2>
      {slice.primary.show_description !== false ? <PrismicRichText field={list.data.description} /> : null}
      <table>
        <tbody>
          {rows.map((row, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a server render, never reordered
            <tr key={index} className={row.highlighted ? "highlighted" : undefined}>
              <td>{row.category}</td>
              <th scope="row">{row.name}</th>
              <td>{row.description}</td>
              <td>{typeof row.price === "number" ? price.format(row.price) : null}</td>
              <td>{row.unit}</td>
              <td>{row.note}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function ContactForm({ slice }: Props): ReactNode {
  const p = slice.primary;
  return (
    <section className="contact">
      {p.heading ? <h2>{p.heading}</h2> : null}
      <PrismicRichText field={p.intro} />
      <form method="post" action="/api/contact" data-success={p.success_message ?? ""}>
        <label>
          Name <input name="name" required />
        </label>
        <label>
          Email <input name="email" type="email" required />
        </label>
        <label>
          Phone <input name="phone" type="tel" data-country={p.default_country ?? ""} />
        </label>
        <label>
          Message <textarea name="message" required />
        </label>
        <button type="submit">Send</button>
      </form>
    </section>
  );
}

export const components = {
  hero: Hero,
  text_section: TextSection,
  carousel: Carousel,
  faq: Faq,
  price_list_table: PriceListTable,
  contact_form: ContactForm,
};
