import type { SliceComponentProps, SliceLikeRestV2 } from "@prismicio/react";
import type { ReactNode } from "react";
import type { SliceContext } from "../src/slice-context.ts";

/**
 * SliceZone's fallback for a slice type without a component (a model added
 * in Prismic before its component shipped). Visitors never see it: production
 * renders nothing (render.ts logs a warning); preview shows editors a box.
 */
export function MissingSlice({ slice, context }: SliceComponentProps<SliceLikeRestV2, unknown>): ReactNode {
  // SliceZone types its fallback's context as unknown; the page passes a SliceContext.
  if ((context as SliceContext).mode !== "preview") return null;
  return (
    <div className="container">
      <p className="slice-missing" role="note" data-slice-type={slice.slice_type}>
        {`No component renders the slice type "${slice.slice_type}" yet: visitors will not see this section.`}
      </p>
    </div>
  );
}
