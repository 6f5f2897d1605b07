export { type ContentNotice, describeNotice, documentNotices } from "./content-notices.ts";
export * from "./content-source.ts";
export { type DocumentLinks, documentLinks } from "./document-links.ts";
export {
  type Conversion,
  documentConversions,
  normalizeDocument,
  normalizeSlices,
  variationOf,
} from "./normalize.ts";
export { type RecordingOptions, type RecordingSource, recordingSource } from "./recording-source.ts";
export { typedSource } from "./typed-source.ts";
