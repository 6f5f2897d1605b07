import type { RichTextField } from "@prismicio/client";

/**
 * Where a rich text field's headings sit in the page's outline. Every HTML route has one `<h1>`
 * (the page title); editors' headings below it may not skip a level (h1 → h3 is an error in the
 * HTML standard's outline rules, and screen readers announce a missing level).
 */
export interface HeadingPlace {
  /** The level of the heading the field sits under: 1 under the page title, 2 under a section's `<h2>`. */
  parent: number;
  /** The level of the heading just before the field, when deeper than `parent` (a section heading). */
  previous?: number;
  /**
   * The field may open with the page's `<h1>`: a hero leading a page whose first block is a
   * Heading 1 (page-view.tsx then renders no other `<h1>`).
   */
  leads?: boolean;
}

export interface Outlined<T> {
  field: T;
  /** The level of the field's last heading (`previous` or `parent` without one): where the next field continues. */
  last: number;
}

const LEVEL = /^heading([1-6])$/;

/**
 * The field with its heading levels clamped into the outline, never dropped: no heading above
 * `parent + 1` (nor an `<h1>`, unless it opens a leading field), and none more than one level
 * below the heading before it. An editor's relative structure (h2, h3, h3, h2) stays as written;
 * a field that opens one level too deep moves up (h3, h4 under the title → h2, h3).
 */
export function outlineHeadings<T extends RichTextField | null | undefined>(
  field: T,
  place: HeadingPlace,
): Outlined<T> {
  let previous = Math.max(place.previous ?? place.parent, place.parent);
  if (!Array.isArray(field)) return { field, last: previous };
  let changed = false;
  const blocks = field.map((block, index) => {
    const match = LEVEL.exec(block.type);
    if (!match) return block;
    const written = Number(match[1]);
    const level =
      index === 0 && place.leads && written === 1
        ? 1
        : Math.min(6, Math.max(place.parent + 1, 2, Math.min(written, previous + 1)));
    previous = level;
    if (level === written) return block;
    changed = true;
    return { ...block, type: `heading${level}` };
  });
  return { field: (changed ? blocks : field) as T, last: previous };
}
