import type { SliceComponentProps } from "@prismicio/react";
import type { ReactNode } from "react";
import type { FaqSlice } from "../../prismicio-types.d.ts";
import { RichText } from "../../src/components/rich-text.tsx";
import type { SliceContext } from "../../src/slice-context.ts";

/** One `<details>` per question: answers open and close without JavaScript and are found by in-page search. */
export default function Faq({ slice }: SliceComponentProps<FaqSlice, SliceContext>): ReactNode {
  const items = slice.items.filter((item) => item.question);
  const heading = slice.primary.heading?.trim();
  return (
    <section className="slice faq" data-slice-type={slice.slice_type} data-slice-variation={slice.variation}>
      <div className="container container--narrow">
        {heading ? <h2 className="section-heading">{heading}</h2> : null}
        <div className="faq__list">
          {items.map((item, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rendered once on the server and never reordered; the index keeps keys unique when editors repeat an entry
            <details className="faq__item" key={`${i}-${item.question}`}>
              <summary className="faq__question">{item.question}</summary>
              <div className="faq__answer prose">
                <RichText field={item.answer} headings={{ parent: heading ? 2 : 1 }} />
              </div>
            </details>
          ))}
        </div>
      </div>
    </section>
  );
}
