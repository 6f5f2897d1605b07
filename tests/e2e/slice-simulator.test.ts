import { readFileSync } from "node:fs";
import { build } from "esbuild";
import Fastify, { type FastifyInstance } from "fastify";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PreviewFixture, previewFixture } from "../support/preview-fixture.ts";
import { hasChromium, releaseChromium, sharedChromium } from "./support/browser.ts";

const mocks = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../web/slices/${name}/mocks.json`, import.meta.url), "utf8")) as {
    slice_type: string;
  }[];

let preview: PreviewFixture;
let parent: FastifyInstance;
let browser: Browser;
let simulatorUrl: string;
let parentUrl: string;

describe.skipIf(!hasChromium)("slice simulator in Chromium", () => {
  beforeAll(async () => {
    // The simulator needs no content: point the client at a port where nothing listens.
    preview = await previewFixture("http://127.0.0.1:9/api/v2");
    simulatorUrl = `${await preview.app.listen({ host: "127.0.0.1", port: 0 })}/slice-simulator`;
    const driver = await build({
      entryPoints: [new URL("./support/simulator-driver.ts", import.meta.url).pathname],
      bundle: true,
      write: false,
      format: "iife",
      platform: "browser",
      define: { "process.env.NODE_ENV": '"production"' },
      logLevel: "silent",
    });
    // Another origin (another port), as Slice Machine is for the simulator.
    parent = Fastify();
    parent.get("/", (_request, reply) =>
      reply
        .type("text/html")
        .send('<!doctype html><title>parent</title><body><script src="/driver.js"></script>'),
    );
    parent.get("/driver.js", (_request, reply) =>
      reply.type("text/javascript").send(driver.outputFiles[0]?.text ?? ""),
    );
    parentUrl = await parent.listen({ host: "127.0.0.1", port: 0 });
    browser = await sharedChromium();
  });
  afterAll(async () => {
    if (browser) await releaseChromium(browser);
    await parent?.close();
    await preview?.app.close();
  });

  it("renders the slices SimulatorClient sends, with the site's components and CSS, and the placeholder for a missing one", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${parentUrl}/?simulator=${encodeURIComponent(simulatorUrl)}`);
    await page.evaluate(() => window.simulator.connected);
    const [hero] = mocks("Hero");
    const [text] = mocks("TextSection");
    const unknown = { ...text, slice_type: "testimonial_wall", id: "testimonial_wall$1" };
    await page.evaluate((slices) => window.simulator.setSliceZone(slices), [hero, text, unknown]);

    const frame = page.frames().find((f) => f.url().startsWith(simulatorUrl));
    if (!frame) throw new Error("simulator frame not found");
    const zone = frame.locator(".slice-simulator [data-slice-zone]");
    await zone.locator("> .simulator-slice").nth(2).waitFor();
    expect(await zone.locator("> .simulator-slice").count()).toBe(3);
    expect(await zone.locator("h2").first().textContent()).toBe("Websites that are a pleasure to run");
    expect(await zone.textContent()).toContain("How a project runs");
    expect(await zone.locator(".slice-missing").textContent()).toContain('"testimonial_wall"');
    // The site's stylesheet applies: slices.css clips the hero (the browser's default is "visible").
    expect(await zone.locator(".hero").evaluate((hero) => getComputedStyle(hero).overflow)).toBe("hidden");

    // A second setSliceZone replaces what is shown.
    await page.evaluate((slices) => window.simulator.setSliceZone(slices), [text]);
    await zone.locator("> .simulator-slice").nth(1).waitFor({ state: "detached" });
    expect(await zone.locator("> .simulator-slice").count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows the kit's message when opened directly", async () => {
    const page = await browser.newPage();
    await page.goto(simulatorUrl);
    await page.locator(".slice-simulator__message").waitFor();
    expect(await page.textContent("body")).toContain("accessing Slice simulator");
    await page.close();
  });
});
