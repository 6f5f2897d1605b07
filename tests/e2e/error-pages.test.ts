import { rm, symlink } from "node:fs/promises";
import { createServer } from "node:net";
import { S3Client } from "@aws-sdk/client-s3";
import Fastify from "fastify";
import type { Browser, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { ERROR_PAGE_FAILED, ERROR_PAGE_FAILED_AS_WELL } from "#http/error-pages.ts";
import { siteApp } from "#site/app.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { tempDir } from "../support/temp-dir.ts";
import { hasChromium } from "./support/browser.ts";
import { type SiteFixture, siteInBrowser } from "./support/site.ts";

/**
 * What a visitor sees when something fails: the built demo site, served by the real site server
 * from a folder where one page cannot be read (the stored 500 page, in the site's look), from an
 * S3 endpoint that does not answer (the built-in fallback, styled without storage), and from a
 * site whose 404.html is missing. `UPDATE_SCREENSHOTS=1` writes docs/screenshots/error-*.png.
 */
const SHOTS = new URL("../../docs/screenshots/", import.meta.url).pathname;
let site: SiteFixture;
let browser: Browser;
const servers: { close(): Promise<unknown> }[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

async function serve(store: SiteStore): Promise<string> {
  const app = Fastify();
  await app.register(siteApp, { store, manifestRefreshMs: 0 });
  servers.push(app);
  return app.listen({ host: "127.0.0.1", port: 0 });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Seen {
  page: Page;
  status: number | undefined;
  problems: string[];
  close(): Promise<void>;
}

async function visit(url: string, width = 1280): Promise<Seen> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  // A 4xx/5xx document logs "Failed to load resource" by design; anything else (CSP refusals) counts.
  page.on("console", (message) => {
    if (message.type() === "error" && !/Failed to load resource/.test(message.text()))
      problems.push(message.text());
  });
  const response = await page.goto(url);
  return { page, status: response?.status(), problems, close: () => context.close() };
}

async function shoot(page: Page, name: string) {
  if (process.env.UPDATE_SCREENSHOTS) await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
}

describe.skipIf(!hasChromium)("error pages in the browser", () => {
  siteInBrowser({}, (fixture) => {
    ({ site, browser } = fixture);
  });

  it("shows the stored 500 page in the site's look, with a reference, when a page cannot be read", async () => {
    const folder = await tempDir("site-copy");
    try {
      // The built site, copied, with one page replaced by something no read gets through (ELOOP).
      const store = createSiteStore({
        url: `file://${folder.path}`,
        s3Endpoint: undefined,
        s3Region: "us-east-1",
      });
      for await (const info of site.store.list("")) {
        const object = await site.store.get(info.key);
        if (object)
          await store.put(info.key, object.body, {
            contentType: object.contentType,
            cacheControl: object.cacheControl,
            contentHash: object.contentHash as string,
          });
      }
      const broken = `${folder.path}/about/index.html`;
      await rm(broken);
      await symlink(broken, broken);
      const url = await serve(store);
      for (const width of [1280, 390]) {
        const seen = await visit(`${url}/about`, width);
        expect(seen.status).toBe(500);
        const { page } = seen;
        await expect.poll(() => page.locator("h1").textContent()).toBe("Something went wrong on our side");
        expect(await page.locator(".site-header").count()).toBe(1);
        const reference = await page.locator(".error-page__reference code").textContent();
        expect(reference).toMatch(/^\S+$/);
        expect(await page.locator(".error-page__reference").isVisible()).toBe(true);
        const body = await page.content();
        expect(body).not.toContain(folder.path);
        expect(body).not.toContain("ELOOP");
        expect(seen.problems).toEqual([]);
        await shoot(page, `error-500-${width}`);
        await page.getByRole("link", { name: "Go to the home page" }).click();
        await page.waitForURL(`${url}/`);
        expect(await page.locator("h1").first().textContent()).toBeTruthy();
        await seen.close();
      }
    } finally {
      await folder.remove();
    }
  });

  it("shows the built-in fallback, styled and with 'Go back to home', when storage does not answer", async () => {
    const port = await closedPort();
    const endpoint = `http://127.0.0.1:${port}`;
    const s3Client = new S3Client({
      endpoint,
      forcePathStyle: true,
      region: "us-east-1",
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
      maxAttempts: 1,
    });
    const url = await serve(
      createSiteStore(
        { url: "s3://site-bucket/www", s3Endpoint: endpoint, s3Region: "us-east-1" },
        { s3Client },
      ),
    );
    for (const width of [1280, 390]) {
      const seen = await visit(`${url}/about`, width);
      const { page } = seen;
      expect(seen.status).toBe(503);
      expect(await page.locator("h1").textContent()).toBe("This site is briefly unavailable");
      expect(await page.locator("[data-fallback-message]").textContent()).toBe(
        `${ERROR_PAGE_FAILED_AS_WELL}.`,
      );
      expect(await page.locator(".error-page__reference code").textContent()).toMatch(
        /^[0-9a-f]+$|^req-\d+$/,
      );
      // The fallback stylesheet comes from the server's memory: styled although storage is down.
      const background = await page.evaluate(
        () => getComputedStyle(document.documentElement).backgroundColor,
      );
      expect(background).toBe("rgb(255, 250, 242)");
      const text = await page.content();
      for (const internal of ["site-bucket", String(port), "StorageError", "ECONNREFUSED"])
        expect(text).not.toContain(internal);
      expect(seen.problems).toEqual([]);
      await shoot(page, `error-503-fallback-${width}`);
      const home = page.getByRole("link", { name: "Go back to home" });
      expect(await home.getAttribute("href")).toBe("/");
      await seen.close();
    }
    s3Client.destroy();
  });

  it("shows the fallback's first words when only 404.html is missing", async () => {
    const store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
    const index = await site.store.get("index.html");
    if (index)
      await store.put("index.html", index.body, {
        contentType: index.contentType,
        cacheControl: index.cacheControl,
        contentHash: index.contentHash as string,
      });
    const url = await serve(store);
    const seen = await visit(`${url}/no-such-page`);
    expect(seen.status).toBe(404);
    expect(await seen.page.locator("h1").textContent()).toBe("This page could not be found");
    expect(await seen.page.locator("[data-fallback-message]").textContent()).toBe(`${ERROR_PAGE_FAILED}.`);
    await shoot(seen.page, "error-404-fallback-1280");
    await seen.page.getByRole("link", { name: "Go back to home" }).click();
    await seen.page.waitForURL(`${url}/`);
    await seen.close();
  });
});
