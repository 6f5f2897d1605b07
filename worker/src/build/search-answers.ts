import type { PrismicDocument } from "@prismicio/client";

/**
 * The documents of content API search answers given as their bytes (a render thread's batch): each
 * answer's `results`. An answer that is not a search answer fails the batch, which is retried.
 */
export function documentsOfAnswers(answers: readonly ArrayBuffer[]): PrismicDocument[] {
  const decoder = new TextDecoder();
  return answers.flatMap((answer) => {
    const parsed = JSON.parse(decoder.decode(answer)) as { results?: unknown };
    if (!Array.isArray(parsed.results))
      throw new Error("the content API's search answer has no results list");
    return parsed.results as PrismicDocument[];
  });
}
