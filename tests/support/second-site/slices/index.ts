import type { SliceComponentType } from "@prismicio/react";
import Quote from "./Quote/index.tsx";

/** Slice id → component, as Slice Machine lays it out (one folder per slice, its model.json beside it). */
// biome-ignore lint/suspicious/noExplicitAny: each component takes its own slice type; SliceZone picks by slice_type
export const components: Record<string, SliceComponentType<any>> = { quote: Quote };
