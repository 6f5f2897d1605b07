import type { ComponentType } from "react";

/** A module `islands/<name>.client.tsx`: its default export hydrates the island's server markup. */
export interface IslandModule {
  default: ComponentType<never>;
}

/**
 * Island name (the server's `data-island`) → its chunk. Each dynamic import
 * becomes its own chunk, fetched only when that island wakes (island-wake.ts).
 * The cookie notice is not here: no React for it (cookie-notice.ts, in the entry).
 */
export const ISLANDS: Record<string, () => Promise<IslandModule>> = {
  "mobile-menu": () => import("./islands/mobile-menu.client.tsx"),
  "contact-form": () => import("./islands/contact-form.client.tsx"),
  carousel: () => import("./islands/carousel.client.tsx"),
};
