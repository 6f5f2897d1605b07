/** A built file served under `/assets/` (the website contract's). */
export type { AssetFile } from "#website/contract.ts";
