import { asText } from "@prismicio/client";
import type { FAQPage, Question } from "schema-dts";
import type { PageDocument } from "../content/index.ts";

type Slices = PageDocument["data"]["slices"];

/**
 * The questions of every FAQ slice on the page as one `FAQPage` (Google reads one per page:
 * developers.google.com/search/docs/appearance/structured-data/faqpage requires `mainEntity`, each
 * a `Question` with `name` and `acceptedAnswer` whose `text` is the full answer). Exactly what the
 * slices show: an item without a question is not rendered, nor is it here; one without an answer
 * is rendered but has nothing to offer here. The answer is its plain text, paragraphs on lines.
 */
export function faqPageNode(slices: Slices, pageUrl: string): FAQPage | undefined {
  const questions: Question[] = [];
  for (const slice of slices) {
    if (slice.slice_type !== "faq") continue;
    for (const item of slice.items ?? []) {
      const name = item.question?.trim();
      const answer = asText(item.answer ?? [], { separator: "\n" }).trim();
      if (!name || !answer) continue;
      questions.push({ "@type": "Question", name, acceptedAnswer: { "@type": "Answer", text: answer } });
    }
  }
  if (questions.length === 0) return undefined;
  return { "@type": "FAQPage", "@id": `${pageUrl}#faq`, url: pageUrl, mainEntity: questions };
}
