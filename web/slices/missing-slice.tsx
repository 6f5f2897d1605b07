import type { SliceComponentProps, SliceComponentType, SliceLikeRestV2 } from "@prismicio/react";
import type { ReactNode } from "react";
import { variationOf } from "../src/content/normalize.ts";
import type { SliceContext } from "../src/slice-context.ts";
import { sliceModels } from "./models.ts";

/**
 * SliceZone's fallback for a slice no component renders: a slice type without a component (a model
 * added in Prismic before its component shipped), or a variation of a known slice that no model
 * here has (added in Slice Machine, not yet deployed). Visitors never see it: production renders
 * nothing (the build and the publish report it, web/src/content/content-notices.ts); preview shows
 * editors a box.
 */
export function MissingSlice({ slice, context }: SliceComponentProps<SliceLikeRestV2, unknown>): ReactNode {
  // SliceZone types its fallback's context as unknown; the page passes a SliceContext.
  if ((context as SliceContext | undefined)?.mode !== "preview") return null;
  const variation = (slice as { variation?: unknown }).variation;
  const text =
    slice.slice_type in sliceModels
      ? `The slice "${slice.slice_type}" has a variation ("${String(variation)}") that no component renders yet: visitors will not see this section.`
      : `No component renders the slice type "${slice.slice_type}" yet: visitors will not see this section.`;
  return (
    <div className="container">
      <p className="slice-missing" role="note" data-slice-type={slice.slice_type}>
        {text}
      </p>
    </div>
  );
}

// biome-ignore lint/suspicious/noExplicitAny: each component takes its own slice type; SliceZone picks by slice_type
type AnySliceProps = SliceComponentProps<any, SliceContext>;

/**
 * `Component` for the variations its slice model has; any other variation gets MissingSlice, since
 * the component was written for fields that variation may not have.
 */
export function knownVariationsOnly(
  Component: SliceComponentType<AnySliceProps["slice"], SliceContext>,
): SliceComponentType<AnySliceProps["slice"], SliceContext> {
  return function KnownVariation(props: AnySliceProps): ReactNode {
    if (variationOf(props.slice)) return <Component {...props} />;
    return <MissingSlice {...(props as SliceComponentProps<SliceLikeRestV2, unknown>)} />;
  };
}
