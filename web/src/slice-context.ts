import type { PriceListDocument } from "./content/index.ts";
import type { RenderMode } from "./render-context.ts";

/** What every slice component receives as SliceZone's `context`. */
export interface SliceContext {
  mode: RenderMode;
  /** Price lists embedded by price_list_table slices, loaded before rendering (a render does no I/O). */
  priceLists: ReadonlyMap<string, PriceListDocument>;
  /** The slice whose image is the page's main image (eager, high priority); -1 for none. */
  priorityIndex: number;
}
