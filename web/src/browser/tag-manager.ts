import { markConsent, readConsent } from "./consent.ts";

/**
 * Marks `<html data-consent>` for the stylesheet (the cookie notice), then,
 * only when the settings name a container (`<meta name="pressroom:tag-manager">`),
 * loads the consent and Do Not Track rules (tag-manager-load.ts) as their own
 * chunk, so pages of a site without a tag manager never download them.
 */
export function startTagManager(): void {
  markConsent(readConsent() ?? "unset");
  const id = document.querySelector<HTMLMetaElement>('meta[name="pressroom:tag-manager"]')?.content;
  if (id) import("./tag-manager-load.ts").then((module) => module.startContainer(id)).catch(console.error);
}
