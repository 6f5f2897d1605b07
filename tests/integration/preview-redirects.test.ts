/**
 * What editors see of their redirects in preview: a redirect document's preview link
 * opens a page saying what it redirects, where, how, and whether the site serves it (or why not:
 * a page wins, a loop); a page a redirect claims says so above its content; a redirect's path
 * opened in preview goes where the redirect does. Real local content service, real client.
 */
import type { PrismicDocument } from "@prismicio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import {
  cookieOf,
  demoDoc,
  type PreviewFixture,
  previewFixture,
  putDraft,
} from "../support/preview-fixture.ts";

const PRICING = demoDoc("Z9nWvxEAACUAx1Ee");
const TEAM = "Z9nX0REAACMAx1Ll"; // the demo's /team → about, permanent

let content: LocalPrismic;
let preview: PreviewFixture;
beforeAll(async () => {
  content = await startLocalPrismic();
  preview = await previewFixture(content.endpoint);
});
afterAll(async () => {
  await preview?.app.close();
  await content?.stop();
});

const redirect = (id: string, from: string, to: unknown, permanent = true): PrismicDocument => ({
  ...demoDoc(TEAM),
  id,
  data: { from_path: from, to, permanent },
});
const toPricing = {
  link_type: "Document",
  id: PRICING.id,
  type: "page",
  uid: "pricing",
  lang: "en-us",
  tags: [],
  isBroken: false,
};

/** Opens the preview link of a draft of `doc`; answers where it leads and the preview cookie. */
async function previewLink(doc: PrismicDocument) {
  const token = await putDraft(content.url, doc);
  const link = await preview.app.inject(
    `/api/preview?token=${encodeURIComponent(token)}&documentId=${doc.id}`,
  );
  expect(link.statusCode).toBe(302);
  return { location: String(link.headers.location), cookie: cookieOf(link.headers["set-cookie"]) };
}

describe("redirects in preview", () => {
  it("a redirect document's preview says what it does and that the site will serve it", async () => {
    const draft = redirect("PreviewRedirect01", "/Spring-Sale/", toPricing, false);
    const { location, cookie } = await previewLink(draft);
    expect(location).toBe("/_pressroom/redirect/PreviewRedirect01");
    const page = await preview.app.inject({ url: location, headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.headers["cache-control"]).toBe("no-store");
    expect(page.body).toContain("<h1>Redirect</h1>");
    expect(page.body).toContain("<dt>From</dt><dd><code>/spring-sale</code></dd>");
    expect(page.body).toContain("Temporary (302)");
    expect(page.body).toContain(
      "<strong>Served</strong> once published: a visitor opening <code>/spring-sale</code> goes to <code>/pricing</code>.",
    );
    expect(page.body).toContain("Preview — <a"); // the banner, to leave the preview
    // Opened in the preview, its path goes where it will (302: the preview keeps nothing).
    const followed = await preview.app.inject({ url: "/spring-sale?utm_source=x", headers: { cookie } });
    expect(followed.statusCode).toBe(302);
    expect(followed.headers.location).toBe("/pricing");
    // Not published: visitors (no preview cookie) see the page not found there.
    expect((await preview.app.inject("/spring-sale")).statusCode).toBe(404);
  });

  it("a redirect claiming a page's path: its preview says the page wins, and the page's preview says so too", async () => {
    const draft = redirect("PreviewRedirect02", "/about", toPricing);
    const { location, cookie } = await previewLink(draft);
    const page = await preview.app.inject({ url: location, headers: { cookie } });
    expect(page.body).toContain(
      '<p class="preview-status preview-status--refused" role="alert"><strong>Not served.</strong>',
    );
    expect(page.body).toContain(
      "A page is published at /about, and a page wins (unpublish the page or change the From path).",
    );
    expect(page.body).toContain('<a href="/about">See the page published at /about</a>');
    const about = await preview.app.inject({ url: "/about", headers: { cookie } });
    expect(about.statusCode).toBe(200);
    expect(about.body).toContain(
      'role="note" data-notice="redirect">For editors: the redirect PreviewRedirect02 from “/about” is not served while this page is published at /about: a page wins.',
    );
    // Other pages say nothing.
    expect((await preview.app.inject({ url: "/services", headers: { cookie } })).body).not.toContain(
      'data-notice="redirect"',
    );
  });

  it("a loop says so", async () => {
    await putDraft(
      content.url,
      redirect("PreviewLoopA0001", "/loop-a", {
        link_type: "Web",
        url: "https://www.northwind.example/loop-b",
      }),
    );
    const { location, cookie } = await previewLink(
      redirect("PreviewLoopB0001", "/loop-b", {
        link_type: "Web",
        url: "https://www.northwind.example/loop-a",
      }),
    );
    const page = await preview.app.inject({ url: location, headers: { cookie } });
    expect(page.body).toContain(
      "It is part of a loop (/loop-a → /loop-b → /loop-a), which would never reach a page.",
    );
    expect((await preview.app.inject({ url: "/loop-a", headers: { cookie } })).statusCode).toBe(404);
  });

  it("published redirects go where they go for anyone; an unknown redirect preview is the page not found", async () => {
    const team = await preview.app.inject("/team");
    expect(team.statusCode).toBe(302);
    expect(team.headers.location).toBe("/about");
    expect((await preview.app.inject("/_pressroom/redirect/NoSuchRedirect1")).statusCode).toBe(404);
    expect((await preview.app.inject("/_pressroom/redirect/Z9nWuhEAACMAx1Cc")).statusCode).toBe(404); // a page
  });

  it("a page's preview link still opens its page", async () => {
    const { location } = await previewLink(PRICING);
    expect(location).toBe("/pricing");
  });
});
