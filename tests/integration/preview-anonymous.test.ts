import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MasterPages, RenderLimiter } from "#preview/master-pages.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { cookieOf, draftOfAbout, previewFixture, putDraft } from "../support/preview-fixture.ts";

let content: LocalPrismic;
beforeAll(async () => {
  content = await startLocalPrismic();
});
afterAll(async () => {
  await content?.stop();
});

/** What the local content service has answered so far: the cost the preview server puts on Prismic. */
async function apiCalls(): Promise<number> {
  const stats = (await (await fetch(`${content.url}/admin/stats`)).json()) as {
    requests: { repository: number; search: number };
  };
  return stats.requests.repository + stats.requests.search;
}

describe("preview server: anonymous requests do not each cost the content API", () => {
  it("50 anonymous requests for a page cost what one costs; query strings do not bust the cache", async () => {
    const preview = await previewFixture(content.endpoint);
    try {
      const start = await apiCalls();
      const first = await preview.app.inject({ url: "/about", remoteAddress: "198.51.100.1" });
      expect(first.statusCode).toBe(200);
      expect(first.body).toContain("About Northwind Studio");
      const one = (await apiCalls()) - start;
      expect(one).toBeGreaterThan(0);
      for (let i = 0; i < 49; i++) {
        const again = await preview.app.inject({
          url: `/about?utm=${i}`,
          remoteAddress: `198.51.100.${i + 2}`,
        });
        expect(again.statusCode).toBe(200);
        expect(again.body).toBe(first.body);
        expect(again.headers["cache-control"]).toBe("no-store");
      }
      expect((await apiCalls()) - start).toBe(one);
    } finally {
      await preview.app.close();
    }
  });

  it("editors with a preview cookie still see their draft, never the shared page", async () => {
    const preview = await previewFixture(content.endpoint);
    try {
      await preview.app.inject("/about");
      const token = await putDraft(content.url, draftOfAbout("About — a draft nobody else sees"));
      const link = await preview.app.inject(
        `/api/preview?token=${encodeURIComponent(token)}&documentId=${draftOfAbout("x").id}`,
      );
      const drafted = await preview.app.inject({
        url: "/about",
        headers: { cookie: cookieOf(link.headers["set-cookie"]) },
      });
      expect(drafted.body).toContain("About — a draft nobody else sees");
      const anonymous = await preview.app.inject("/about");
      expect(anonymous.body).not.toContain("a draft nobody else sees");
    } finally {
      await preview.app.close();
    }
  });

  it("bounds what still reaches the content API per client: 429 with Retry-After past the limit", async () => {
    const preview = await previewFixture(content.endpoint, undefined, { rendersPerMinute: 5 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const response = await preview.app.inject({
          url: `/no-such-page-${i}`,
          remoteAddress: "203.0.113.9",
        });
        statuses.push(response.statusCode);
        if (response.statusCode === 429) expect(Number(response.headers["retry-after"])).toBeGreaterThan(0);
      }
      expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429, 429]);
      const before = await apiCalls();
      for (let i = 0; i < 20; i++)
        await preview.app.inject({ url: `/other-${i}`, remoteAddress: "203.0.113.9" });
      expect(await apiCalls()).toBe(before);
      // Another client is not held back, and cached pages stay served to everyone.
      expect(
        (await preview.app.inject({ url: "/no-such-page-0", remoteAddress: "203.0.113.10" })).statusCode,
      ).toBe(404);
      expect(
        (await preview.app.inject({ url: "/no-such-page-0", remoteAddress: "203.0.113.9" })).statusCode,
      ).toBe(404);
    } finally {
      await preview.app.close();
    }
  });
});

describe("MasterPages and RenderLimiter, on a fake clock", () => {
  it("asks the master ref once per interval, shares one ask, and drops pages of an older ref", async () => {
    let now = 0;
    let asked = 0;
    let ref = "A";
    const pages = new MasterPages(
      async () => {
        asked++;
        return ref;
      },
      { refTtlMs: 5_000, now: () => now },
    );
    expect(await Promise.all([pages.masterRef(), pages.masterRef(), pages.masterRef()])).toEqual([
      "A",
      "A",
      "A",
    ]);
    expect(asked).toBe(1);
    pages.set("A", "/about", { status: 200, contentType: "text/html", body: "a" });
    now = 4_999;
    expect(await pages.masterRef()).toBe("A");
    expect(asked).toBe(1);
    ref = "B";
    now = 5_000;
    expect(await pages.masterRef()).toBe("B");
    expect(asked).toBe(2);
    expect(pages.get("A", "/about")).toBeUndefined();
  });

  it("keeps at most maxEntries pages, least recently used out first", async () => {
    const pages = new MasterPages(async () => "A", { maxEntries: 2 });
    await pages.masterRef();
    const page = (body: string) => ({ status: 200, contentType: "text/html", body });
    pages.set("A", "/1", page("1"));
    pages.set("A", "/2", page("2"));
    pages.get("A", "/1");
    pages.set("A", "/3", page("3"));
    expect(pages.get("A", "/2")).toBeUndefined();
    expect(pages.get("A", "/1")?.body).toBe("1");
    expect(pages.get("A", "/3")?.body).toBe("3");
  });

  it("counts renders per client in fixed windows", () => {
    let now = 0;
    const limiter = new RenderLimiter(2, 60_000, () => now);
    expect([limiter.take("a"), limiter.take("a"), limiter.take("b")]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(limiter.take("a")).toBe(60);
    now = 30_000;
    expect(limiter.take("a")).toBe(30);
    now = 60_000;
    expect(limiter.take("a")).toBeUndefined();
  });
});
