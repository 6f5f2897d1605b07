import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { EMBED_FRAME_ORIGINS } from "#web/lib/embed-providers.ts";
import { hasChromium } from "./support/browser.ts";
import { type SiteFixture, siteInBrowser } from "./support/site.ts";

/**
 * Embeds as visitors meet them, on the built site behind the real site server and its CSP: every
 * demo page without a single CSP violation, then the services page with one embed of each
 * allow-listed provider plus one that is not. The machine has no internet: page.route answers for
 * the providers' hosts with a small page, so the frames really load (and the CSP really decides).
 */
const SERVICES = JSON.parse(
  readFileSync(
    new URL("../../services/local-prismic/demo/documents/Z9nWvBEAACQAx1Dd.json", import.meta.url),
    "utf8",
  ),
);
const WIDE = { width: 1280, height: 900 };
/** Pages loaded at once while every demo route is visited. */
const PAGES_AT_ONCE = 3;

let site: SiteFixture;
let browser: Browser;

/** A context whose pages report CSP violations and errors, with the providers answered locally. */
async function visitor(): Promise<{ context: BrowserContext; problems: string[] }> {
  const context = await browser.newContext({ viewport: WIDE });
  const problems: string[] = [];
  await context.addInitScript(() =>
    document.addEventListener("securitypolicyviolation", (event) =>
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`),
    ),
  );
  for (const origin of EMBED_FRAME_ORIGINS)
    await context.route(`${origin}/**`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<!doctype html><title>player</title><p id="player">Player from ${origin}</p>`,
      }),
    );
  context.on("console", (message) => {
    // Only the site's own page: the stand-in players are not under test.
    if (message.type() !== "error" || !message.page()?.mainFrame().url().startsWith(site.url)) return;
    // The 404 page's own answer, as the browser logs it.
    if (message.location().url.endsWith("/no-such-page") && message.text().includes("status of 404")) return;
    problems.push(message.text());
  });
  context.on("weberror", (error) => problems.push(error.error().message));
  return { context, problems };
}

async function demoRoutes(): Promise<string[]> {
  const xml = await (await fetch(`${site.url}/sitemap.xml`)).text();
  return [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => new URL(match[1] as string).pathname);
}

const oembed = (embed_url: string, extra: Record<string, unknown> = {}) => ({
  type: "embed",
  oembed: { embed_url, title: `Embed of ${new URL(embed_url).hostname}`, ...extra },
});

describe.skipIf(!hasChromium)("embeds in the browser", () => {
  siteInBrowser({}, (fixture) => {
    ({ site, browser } = fixture);
  });

  it("no demo page meets a CSP violation or a console error", async () => {
    const { context, problems } = await visitor();
    const routes = await demoRoutes();
    expect(routes.length).toBeGreaterThan(5);
    // A few pages at a time: each spends most of its time waiting for the network to go quiet.
    const queue = [...routes, "/no-such-page"];
    const visit = async () => {
      for (let route = queue.shift(); route !== undefined; route = queue.shift()) {
        const page = await context.newPage();
        await page.goto(`${site.url}${route}`);
        // Bring every island in (the carousel and the contact form hydrate near the viewport).
        await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
        await page.waitForLoadState("networkidle");
        await page.close();
      }
    };
    await Promise.all(Array.from({ length: PAGES_AT_ONCE }, visit));
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("shows each allow-listed provider as a sandboxed player of the right size, anything else as a link", async () => {
    const services = structuredClone(SERVICES);
    const section = services.data.slices.find((s: { slice_type: string }) => s.slice_type === "text_section");
    section.primary.embed = {
      embed_url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
      type: "video",
      provider_name: "YouTube",
      title: "Studio tour",
      width: 480,
      height: 270,
      html: '<iframe width="480" height="270" src="https://www.youtube.com/embed/dQw4w9WgXcQ?feature=oembed"></iframe>',
    };
    section.primary.body = [
      ...section.primary.body,
      oembed("https://vimeo.com/76979871", { width: 640, height: 360 }),
      oembed("https://www.google.com/maps/embed?pb=!1m18!1m12!1m3!1d2795.7!2d-122.67!3d45.52"),
      oembed("https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC"),
      oembed("https://soundcloud.com/forss/flickermood"),
      oembed("https://x.com/northwind/status/1460323737035677698", {
        html: '<blockquote class="twitter-tweet"><p>Hi</p></blockquote><script async src="https://platform.twitter.com/widgets.js"></script>',
      }),
      oembed("https://www.instagram.com/p/CxYz123_-Ab/"),
      oembed("https://evil.example/widget", {
        html: '<script>window.owned = true</script><iframe src="https://evil.example/x"></iframe>',
      }),
    ];
    await site.publishAndRebuild([services]);

    const { context, problems } = await visitor();
    const page: Page = await context.newPage();
    await page.goto(`${site.url}/services`);
    const frames = page.locator(".embed iframe");
    expect(await frames.count()).toBe(7);
    const hosts: string[] = [];
    for (const frame of await frames.all()) {
      await frame.scrollIntoViewIfNeeded();
      const src = (await frame.getAttribute("src")) ?? "";
      hosts.push(new URL(src).hostname);
      expect(await frame.getAttribute("sandbox")).toContain("allow-scripts");
      expect(await frame.getAttribute("sandbox")).not.toContain("allow-top-navigation");
      // Loaded: the CSP let it through and the stand-in player shows.
      await frame.contentFrame().locator("#player").waitFor();
    }
    expect(hosts).toEqual([
      "player.vimeo.com",
      "www.google.com",
      "open.spotify.com",
      "w.soundcloud.com",
      "platform.twitter.com",
      "www.instagram.com",
      "www.youtube-nocookie.com",
    ]);
    // The video keeps its 16:9 box (it was 736×150 while its inline style was blocked).
    const video = await page.locator('.embed iframe[src*="youtube-nocookie"]').boundingBox();
    expect(video?.height).toBeGreaterThan(300);
    expect((video?.width ?? 0) / (video?.height ?? 1)).toBeCloseTo(16 / 9, 1);
    const audio = await page.locator('.embed iframe[src*="open.spotify.com"]').boundingBox();
    expect(audio?.height).toBe(152);
    // Not allow-listed: a link to the page, none of its HTML.
    await page.getByRole("link", { name: "Embed of evil.example" }).waitFor();
    expect(await page.evaluate(() => (window as { owned?: boolean }).owned)).toBeUndefined();
    expect(await page.locator('iframe[src*="evil.example"], script[src*="twitter"]').count()).toBe(0);
    await page.screenshot({ path: `${process.env.TMPDIR ?? "/tmp"}/embeds-1280.png`, fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
