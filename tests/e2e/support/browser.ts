import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
/** e2e tests skip (with a note in the output) where Debian's chromium is not installed. */
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`e2e: ${CHROMIUM} not found; browser tests are skipped`);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
