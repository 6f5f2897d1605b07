export * from "./content-client.ts";
export {
  type ContentFetch,
  createContentFetch,
  DEFAULT_MAX_RETRY_AFTER_MS,
  type RateLimitWait,
  retryAfterMs,
} from "./content-fetch.ts";
export { type ContentSchema, loadContentSchema } from "./content-schema.ts";
export * from "./preview-ref.ts";
