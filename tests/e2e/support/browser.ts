import type { Browser } from "playwright-core";
import { CHROMIUM, hasChromium, launchChromium } from "#scripts/chromium.ts";

export { CHROMIUM, hasChromium } from "#scripts/chromium.ts";

/** e2e tests skip (with a note in the output) where Debian's chromium is not installed. */
if (!hasChromium) console.warn(`e2e: ${CHROMIUM} not found; browser tests are skipped`);

let shared: Promise<Browser> | undefined;

/**
 * One Chromium for every e2e file the process runs (the browser project keeps its modules from
 * file to file: vitest.config.ts), launched on first use; a test takes a fresh context of its own,
 * and `releaseChromium()` closes every context a file leaves. Playwright ends it with the process
 * (and launches another if it went away).
 */
export function sharedChromium(): Promise<Browser> {
  shared ??= launchChromium().then((browser) => {
    browser.on("disconnected", () => {
      shared = undefined;
    });
    return browser;
  });
  return shared;
}

/** After a file: closes every context it left open in the shared Chromium, as closing it would. */
export async function releaseChromium(browser: Browser): Promise<void> {
  await Promise.all(browser.contexts().map((context) => context.close().catch(() => undefined)));
}
