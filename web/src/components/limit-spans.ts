import type { RichTextField } from "@prismicio/client";

/**
 * Formatting spans kept per text block. @prismicio/client's asTree nests overlapping spans
 * recursively and splits each one over its neighbours: 2,000 overlapping spans cost seconds, a
 * 770 KB paragraph and, on a render thread's smaller stack, "Maximum call stack size exceeded".
 * No editor needs more than a hundred bold/italic/link runs in one paragraph: beyond that the
 * extra spans are dropped (the text is always kept whole), so one odd document cannot stall a
 * publish or a preview.
 */
export const MAX_SPANS_PER_BLOCK = 100;

export function limitSpans<T extends RichTextField | null | undefined>(field: T): T {
  if (!Array.isArray(field)) return field;
  if (!field.some((block) => "spans" in block && block.spans.length > MAX_SPANS_PER_BLOCK)) return field;
  return field.map((block) => {
    if (!("spans" in block) || block.spans.length <= MAX_SPANS_PER_BLOCK) return block;
    const spans = [...block.spans].sort((a, b) => a.start - b.start).slice(0, MAX_SPANS_PER_BLOCK);
    return { ...block, spans };
  }) as T;
}
