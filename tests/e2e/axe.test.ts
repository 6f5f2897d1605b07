import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ISLAND_WAKE } from "#web/browser/island-wake.ts";
import { hasChromium } from "./support/browser.ts";
import { type SiteFixture, siteInBrowser } from "./support/site.ts";

/**
 * axe-core on every demo route, as a visitor's browser shows it: the built site served by the real
 * site server (with its strict CSP), Chromium at a phone width (390 px) and a desktop width
 * (1280 px), after the islands have hydrated. Every rule axe runs by default (WCAG 2.x A/AA and
 * axe's best practices) must pass. Two passes: a first visit (the cookie notice showing) and after
 * the visitor declined cookies (the notice gone, as on every later page) — the site must be
 * accessible either way.
 */

const AXE_SOURCE = readFileSync(new URL("../../node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
] as const;
/** A path no document has: the site answers its 404 page. */
const MISSING = "/no-such-page-for-axe";
/** How long to wait for islands to hydrate before checking the server markup as it is. */
const HYDRATION_TIMEOUT_MS = 10_000;
/** Pages checked at once in a pass (checkRoutes). */
const PAGES_AT_ONCE = 3;
/** A pass visits every route (about 13); a route is a page load, hydration and an axe run. */
const PASS_TIMEOUT_MS = 180_000;

interface AxeNode {
  target: unknown[];
  html: string;
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: AxeNode[];
}

let site: SiteFixture;
let browser: Browser;
let routes: string[];

/** The demo routes, as the sitemap lists them, plus a missing path for the 404 page. */
async function siteRoutes(url: string): Promise<string[]> {
  const response = await fetch(`${url}/sitemap.xml`);
  expect(response.status).toBe(200);
  const xml = await response.text();
  const paths = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map(
    (match) => new URL(match[1] as string).pathname,
  );
  return [...paths, MISSING];
}

/**
 * Wakes each island the way a visitor would (island-wake.ts) and waits for its `data-hydrated`:
 * the carousel and the contact form brought into view, the mobile menu focused where it shows
 * (then focus is let go), the cookie notice only while it shows (live once the page has loaded,
 * browser/cookie-notice.ts; a visitor who chose never sees it). Then back to the top. Islands
 * that should have woken and did not by the deadline are checked as the server rendered them, and
 * named in the output.
 */
async function settle(page: Page): Promise<string[]> {
  const deadline = Date.now() + HYDRATION_TIMEOUT_MS;
  const waiting: string[] = [];
  for (const island of await page.locator("[data-island]").all()) {
    const name = (await island.getAttribute("data-island")) ?? "?";
    const wake = ISLAND_WAKE[name];
    // The cookie notice has no wake rule (no React: the entry makes it live while it shows).
    if (name === "cookie-notice" && (await page.locator('html[data-consent="unset"]').count()) === 0)
      continue;
    if (wake === "interaction") {
      // Hidden at this width (the menu on a wide screen): nothing to wake, nothing a visitor meets.
      if (!(await island.isVisible())) continue;
      await island.locator("summary, button").first().focus();
    } else {
      await island.evaluate((element) => element.scrollIntoView({ block: "center" }));
    }
    waiting.push(name);
    await island
      .and(page.locator("[data-hydrated]"))
      .waitFor({ state: "attached", timeout: Math.max(1, deadline - Date.now()) })
      .catch(() => undefined);
  }
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  const asleep = await page.evaluate(() =>
    [...document.querySelectorAll("[data-island]:not([data-hydrated])")].map(
      (island) => island.getAttribute("data-island") ?? "?",
    ),
  );
  return asleep.filter((name) => waiting.includes(name));
}

async function axe(page: Page): Promise<AxeViolation[]> {
  // The site's CSP (`script-src 'self'`) blocks inline and injected <script> tags, so
  // `page.addScriptTag({ content })` would fail. `page.evaluate` runs the source through the
  // DevTools protocol, which CSP does not govern, and leaves the page's own policy in force
  // (bypassCSP would switch it off for the whole page, hiding violations the CSP causes).
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const { violations } = await (
      window as unknown as {
        axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> };
      }
    ).axe.run(document, { resultTypes: ["violations"] });
    return violations.map(({ id, impact, help, helpUrl, nodes }) => ({
      id,
      impact: impact ?? null,
      help,
      helpUrl,
      nodes: nodes.map(({ target, html, failureSummary }) => ({ target, html, failureSummary })),
    }));
  });
}

function describeViolations(where: string, violations: AxeViolation[]): string[] {
  return violations.map((violation) => {
    const nodes = violation.nodes
      .slice(0, 5)
      .map(
        (node) =>
          `      ${node.target.join(" ")}\n        ${node.html.slice(0, 160)}\n        ${(node.failureSummary ?? "").split("\n").slice(0, 3).join(" / ")}`,
      )
      .join("\n");
    const more = violation.nodes.length > 5 ? `\n      … and ${violation.nodes.length - 5} more` : "";
    return `${where}: [${violation.impact}] ${violation.id} — ${violation.help} (${violation.helpUrl})\n${nodes}${more}`;
  });
}

/**
 * Checks every route in one browser context (so a cookie choice made before carries over), a few
 * pages at a time: each page spends most of its ~1.8 s waiting (load, the islands' idle wake-ups),
 * so three in flight take the pass from ~30 s to about half on 2 cores. Problems are listed in the
 * routes' order whatever order the pages finish in.
 */
async function checkRoutes(context: BrowserContext, label: string): Promise<string[]> {
  const found = new Map<string, string[]>();
  const queue = [...routes];
  const check = async () => {
    for (let route = queue.shift(); route !== undefined; route = queue.shift()) {
      const page = await context.newPage();
      const response = await page.goto(`${site.url}${route}`);
      expect(response?.status(), route).toBe(route === MISSING ? 404 : 200);
      const unhydrated = await settle(page);
      if (unhydrated.length > 0)
        console.warn(`axe ${label} ${route}: not hydrated: ${unhydrated.join(", ")}`);
      found.set(route, describeViolations(`${route} (${label})`, await axe(page)));
      await page.close();
    }
  };
  await Promise.all(Array.from({ length: PAGES_AT_ONCE }, check));
  return routes.flatMap((route) => found.get(route) ?? []);
}

/** A context as a visitor's: the phone width is a touch device with a phone's pixel ratio. */
function newContext(viewport: { width: number; height: number }): Promise<BrowserContext> {
  const phone = viewport.width < 600;
  return browser.newContext({ viewport, isMobile: phone, hasTouch: phone, deviceScaleFactor: phone ? 3 : 1 });
}

describe.skipIf(!hasChromium)("accessibility (axe-core) on every demo route", () => {
  siteInBrowser({}, async (fixture) => {
    ({ site, browser } = fixture);
    routes = await siteRoutes(site.url);
  });

  it("checks the whole demo site: every page, the price lists and the 404 page", () => {
    for (const route of [
      "/",
      "/about",
      "/services",
      "/pricing",
      "/faq",
      "/contact",
      "/privacy",
      "/price-list/",
    ]) {
      expect(routes).toContain(route);
    }
    expect(
      routes.filter((route) => route.startsWith("/price-list/") && route !== "/price-list/").length,
    ).toBeGreaterThan(0);
    expect(routes).toContain(MISSING);
  });

  it("runs axe under the site's CSP and reports what it finds (an image without alt text, a low-contrast text)", async () => {
    const context = await newContext(WIDTHS[1]);
    const page = await context.newPage();
    await page.goto(`${site.url}/`);
    await page.evaluate(() => {
      const main = document.querySelector("main") ?? document.body;
      const image = document.createElement("img");
      image.src = "/favicon.svg";
      main.prepend(image);
      const faint = document.createElement("p");
      faint.textContent = "Barely readable";
      faint.style.color = "#ddd";
      faint.style.background = "#fff";
      main.prepend(faint);
    });
    const found = (await axe(page)).map((violation) => violation.id);
    await context.close();
    expect(found).toContain("image-alt");
    expect(found).toContain("color-contrast");
  });

  for (const viewport of WIDTHS) {
    it(
      `has no violations at ${viewport.width} px on a first visit (cookie notice showing)`,
      async () => {
        const context = await newContext(viewport);
        const problems = await checkRoutes(context, `${viewport.width} px, first visit`);
        await context.close();
        expect(problems, `\n${problems.join("\n\n")}\n`).toEqual([]);
      },
      PASS_TIMEOUT_MS,
    );

    it(
      `has no violations at ${viewport.width} px once cookies are declined (notice gone)`,
      async () => {
        const context = await newContext(viewport);
        const page = await context.newPage();
        await page.goto(`${site.url}/`);
        await settle(page);
        const notice = page.locator("[data-island='cookie-notice']");
        await notice.getByRole("button", { name: "Decline" }).click();
        await expect.poll(() => notice.locator(".cookie-notice").isVisible()).toBe(false);
        await page.close();
        const problems = await checkRoutes(context, `${viewport.width} px, cookies declined`);
        await context.close();
        expect(problems, `\n${problems.join("\n\n")}\n`).toEqual([]);
      },
      PASS_TIMEOUT_MS,
    );
  }

  it("shows the contact form's inline errors with no violations (390 and 1280 px)", async () => {
    const problems: string[] = [];
    for (const viewport of WIDTHS) {
      const context = await newContext(viewport);
      const page = await context.newPage();
      await page.goto(`${site.url}/contact`);
      await settle(page);
      const form = page.locator("[data-island='contact-form'][data-hydrated] form");
      await form.locator("input[type='tel']").fill("12");
      await form.getByRole("button", { name: "Send message" }).click();
      await expect.poll(() => form.locator("[aria-invalid='true']").count()).toBeGreaterThanOrEqual(4);
      problems.push(...describeViolations(`/contact (${viewport.width} px, errors shown)`, await axe(page)));
      await context.close();
    }
    expect(problems, `\n${problems.join("\n\n")}\n`).toEqual([]);
  });

  it("shows the no-JavaScript contact result pages (errors, thank you) with no violations", async () => {
    const context = await newContext(WIDTHS[0]);
    const page = await context.newPage();
    const problems: string[] = [];
    // HTMLFormElement.submit() skips the island's submit handler: the browser makes the plain
    // form post a visitor without JavaScript makes, and shows the page the server answers.
    const plainPost = async (values: Record<string, string>) => {
      await page.goto(`${site.url}/contact`);
      await page.locator("form.contact-form").evaluate((form: HTMLFormElement, fields) => {
        for (const [name, value] of Object.entries(fields)) {
          const input = form.elements.namedItem(name) as HTMLInputElement;
          if (input.type === "checkbox") input.checked = value === "on";
          else input.value = value;
        }
        form.submit();
      }, values);
      await page.waitForURL(/\/api\/contact/);
    };
    await plainPost({ name: "", email: "not an email", message: "" });
    await page.locator(".contact-result__errors").waitFor();
    problems.push(...describeViolations("contact result (errors)", await axe(page)));
    await plainPost({
      name: "Ada Lovelace",
      email: "ada@example.com",
      message: "Checked by axe.",
      consent: "on",
    });
    await expect.poll(() => page.locator("h1").textContent()).toMatch(/thank/i);
    problems.push(...describeViolations("contact result (thank you)", await axe(page)));
    await context.close();
    expect(problems, `\n${problems.join("\n\n")}\n`).toEqual([]);
  });

  it("opens the mobile menu at 390 px with no violations", async () => {
    const context = await newContext(WIDTHS[0]);
    const page = await context.newPage();
    await page.goto(`${site.url}/`);
    await settle(page);
    await page.getByRole("button", { name: "Menu" }).or(page.locator(".mobile-menu__toggle")).first().click();
    await expect
      .poll(() => page.locator(".mobile-menu").getByRole("link", { name: "Services" }).isVisible())
      .toBe(true);
    const problems = describeViolations("/ (390 px, mobile menu open)", await axe(page));
    await context.close();
    expect(problems, `\n${problems.join("\n\n")}\n`).toEqual([]);
  });
});
