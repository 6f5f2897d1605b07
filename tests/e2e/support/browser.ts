import { CHROMIUM, hasChromium } from "#scripts/chromium.ts";

export { CHROMIUM, hasChromium, launchChromium } from "#scripts/chromium.ts";

/** e2e tests skip (with a note in the output) where Debian's chromium is not installed. */
if (!hasChromium) console.warn(`e2e: ${CHROMIUM} not found; browser tests are skipped`);
