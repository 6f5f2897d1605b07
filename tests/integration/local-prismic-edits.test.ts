import { readdirSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import * as prismic from "@prismicio/client";
import { afterEach, describe, expect, it } from "vitest";
import { website } from "#website";
import { type HttpFixture, startHttpFixture } from "../support/http-fixture.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";

const DEMO = new URL("../../services/local-prismic/demo/documents/", import.meta.url).pathname;
const ABOUT = "Z9nWuhEAACMAx1Cc";
const WEBSITES = "Z9nWyREAACMAx1Ii";
const SETTINGS = "Z9nWsREAACUAx1Aa";
const SECRET = "a-webhook-secret-of-some-length";
const demoDoc = (id: string) =>
  JSON.parse(readFileSync(`${DEMO}${id}.json`, "utf8")) as prismic.PrismicDocument;
const titleOf = (doc: prismic.PrismicDocument) =>
  prismic.asText((doc.data as { title?: prismic.RichTextField }).title);
const client = (service: LocalPrismic) =>
  prismic.createClient("demo", {
    documentAPIEndpoint: service.endpoint,
    routes: [...website.routes.resolver],
  });

async function call(service: LocalPrismic, method: string, path: string, body?: unknown, raw?: string) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    ...(body !== undefined || raw !== undefined
      ? { body: raw ?? JSON.stringify(body), headers: { "content-type": "application/json" } }
      : {}),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary JSON answers field by field
  return { status: response.status, body: (text ? JSON.parse(text) : null) as Record<string, any> };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
async function start(options: Parameters<typeof startLocalPrismic>[0] = {}) {
  const service = await startLocalPrismic(options);
  cleanups.push(() => service.stop());
  return service;
}
async function receiver(status = 202) {
  const fixture = await startHttpFixture((_request, response) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end("{}");
  });
  cleanups.push(() => fixture.close());
  return fixture;
}
const retitled = (doc: prismic.PrismicDocument, text: string) => ({
  ...doc,
  data: { ...doc.data, title: [{ type: "heading1", text, spans: [] }] },
});

describe("edit API: publish", () => {
  it("moves the master ref, keeps the previous ref readable, and announces it to the webhook as Prismic does", async () => {
    const hook: HttpFixture = await receiver();
    const service = await start({ webhookUrl: `${hook.url}/webhooks/prismic`, webhookSecret: SECRET });
    const before = service.store.masterRef;

    const result = await call(service, "POST", "/admin/publish", {
      upsert: [retitled(demoDoc(ABOUT), "About us, rewritten")],
    });
    expect(result.status).toBe(200);
    expect(result.body.masterRef).not.toBe(before);
    expect(result.body.documents).toEqual([ABOUT]);
    expect(result.body.webhook).toEqual({ status: 202 });

    const api = client(service);
    expect((await api.getMasterRef()).ref).toBe(result.body.masterRef);
    const now = await api.getByID(ABOUT);
    expect(titleOf(now)).toBe("About us, rewritten");
    expect(now.first_publication_date).toBe(demoDoc(ABOUT).first_publication_date);
    expect(now.last_publication_date).not.toBe(demoDoc(ABOUT).last_publication_date);
    const then = await api.getByID(ABOUT, { ref: before });
    expect(titleOf(then)).toBe(titleOf(demoDoc(ABOUT)));

    expect(hook.requests).toHaveLength(1);
    const delivery = hook.requests[0];
    expect(delivery?.method).toBe("POST");
    expect(delivery?.url).toBe("/webhooks/prismic");
    expect(delivery?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(delivery?.body ?? "{}")).toEqual({
      type: "api-update",
      masterRef: result.body.masterRef,
      releases: {},
      masks: {},
      tags: {},
      experiments: {},
      documents: [ABOUT],
      domain: "demo",
      apiUrl: `${service.url}/api`,
      secret: SECRET,
    });
  });

  it("removes a document: it is gone at the new ref, links to it turn broken, and the webhook lists its id", async () => {
    const hook = await receiver(200);
    const service = await start({ webhookUrl: hook.url, webhookSecret: SECRET });
    const result = await call(service, "POST", "/admin/publish", { remove: [WEBSITES] });
    expect(result.status).toBe(200);
    await expect(client(service).getByID(WEBSITES)).rejects.toBeInstanceOf(prismic.NotFoundError);
    expect(JSON.parse(hook.requests[0]?.body ?? "{}").documents).toEqual([WEBSITES]);
    const pricing = await client(service).getByUID("page", "pricing", { brokenRoute: "/404" });
    const link = (pricing.data.slices as prismic.Slice[])
      .map((s) => s.primary.price_list as prismic.ContentRelationshipField)
      .find((l) => l && "id" in l && l.id === WEBSITES);
    expect(link).toMatchObject({ isBroken: true, url: "/404" });
  });

  it("renames a uid: the new route resolves, the old uid no longer does", async () => {
    const service = await start();
    const about = demoDoc(ABOUT);
    expect(
      (await call(service, "POST", "/admin/publish", { upsert: [{ ...about, uid: "about-us" }] })).status,
    ).toBe(200);
    expect((await client(service).getByID(ABOUT)).url).toBe("/about-us");
    await expect(client(service).getByUID("page", "about")).rejects.toBeInstanceOf(prismic.NotFoundError);
  });

  it("accepts every uid Prismic accepts that can be a path segment: underscores, dashes anywhere, accents", async () => {
    const service = await start();
    for (const uid of ["about_us", "-about--us-", "über-uns"]) {
      const result = await call(service, "POST", "/admin/publish", { upsert: [{ ...demoDoc(ABOUT), uid }] });
      expect(result.status, uid).toBe(200);
      expect((await client(service).getByID(ABOUT)).uid).toBe(uid);
    }
  });

  it("creates a new document with an id of its own when none is given", async () => {
    const service = await start();
    const { id: _drop, ...about } = demoDoc(ABOUT);
    const result = await call(service, "POST", "/admin/publish", { upsert: [{ ...about, uid: "careers" }] });
    expect(result.status).toBe(200);
    const created = await client(service).getByUID("page", "careers");
    expect(result.body.documents).toEqual([created.id]);
    expect(created.id).toMatch(/^[\w-]{16}$/);
    expect(created.first_publication_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/);
  });

  it.each<readonly [string, () => object, string]>([
    [
      "a price given as a string",
      () => {
        const doc = demoDoc(WEBSITES);
        const rows = structuredClone(doc.data.rows) as Record<string, unknown>[];
        rows[0] = { ...rows[0], price: "1200" };
        return { upsert: [{ ...doc, data: { ...doc.data, rows } }] };
      },
      "data.rows[0].price",
    ],
    [
      "a field the model does not have",
      () => {
        const doc = demoDoc(ABOUT);
        return { upsert: [{ ...doc, data: { ...doc.data, subtitle: "x" } }] };
      },
      "data.subtitle",
    ],
    ["an unsafe uid", () => ({ upsert: [{ ...demoDoc(ABOUT), uid: "../etc" }] }), "uid"],
    // The site's reserved names (web/src/uid-rules.ts): the build would refuse them later.
    ...["_pressroom", "healthz", "slice-simulator", "assets", "api", "price-list", "a".repeat(101)].map(
      (uid) =>
        [
          `the page uid "${uid.slice(0, 12)}"`,
          () => ({ upsert: [{ ...demoDoc(ABOUT), uid }] }),
          "uid",
        ] as const,
    ),
    ["a uid another page has", () => ({ upsert: [{ ...demoDoc(ABOUT), uid: "pricing" }] }), "uid"],
    [
      "a second settings singleton",
      () => ({ upsert: [{ ...demoDoc(SETTINGS), id: "SecondSettings01" }] }),
      "type",
    ],
    ["an unknown type", () => ({ upsert: [{ ...demoDoc(ABOUT), type: "blog_post" }] }), "type"],
    ["removing an id that is not published", () => ({ remove: ["NoSuchDocument00"] }), "remove[0]"],
  ])("refuses %s with a 422 naming the field, and changes nothing", async (_name, edit, path) => {
    const hook = await receiver();
    const service = await start({ webhookUrl: hook.url, webhookSecret: SECRET });
    const before = service.store.masterRef;
    const result = await call(service, "POST", "/admin/publish", edit());
    expect(result.status).toBe(422);
    expect(result.body.error).toBe("invalid_document");
    expect(result.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    expect(result.body.message).toContain(path);
    expect(service.store.masterRef).toBe(before);
    expect(hook.requests).toHaveLength(0);
    expect((await client(service).getByID(ABOUT)).uid).toBe("about");
  });

  describe("uids stay unique per type and language (a uid decides the route)", () => {
    const copyWithoutId = (uid: string) => {
      const { id: _id, ...copy } = demoDoc(ABOUT);
      return { ...copy, uid };
    };
    const aboutPages = async (service: LocalPrismic) =>
      (await client(service).getAllByType("page")).filter((doc) => doc.uid === "about");

    it("refuses a new document (no id) that takes a published uid, each time it is sent", async () => {
      const service = await start();
      const before = service.store.masterRef;
      for (const attempt of [1, 2]) {
        const result = await call(service, "POST", "/admin/publish", { upsert: [copyWithoutId("about")] });
        expect(result.status, `attempt ${attempt}`).toBe(422);
        expect(result.body.issues).toEqual([
          expect.objectContaining({ path: "uid", message: `"about" is already used by ${ABOUT}` }),
        ]);
      }
      expect(service.store.masterRef).toBe(before);
      expect((await aboutPages(service)).map((doc) => doc.id)).toEqual([ABOUT]);
    });

    it("refuses two new documents of one edit that share a fresh uid", async () => {
      const service = await start();
      const result = await call(service, "POST", "/admin/publish", {
        upsert: [copyWithoutId("careers"), copyWithoutId("careers")],
      });
      expect(result.status).toBe(422);
      expect(result.body.issues.map((i: { path: string }) => i.path)).toContain("uid");
      expect(await client(service).getAllByType("page")).not.toContainEqual(
        expect.objectContaining({ uid: "careers" }),
      );
    });

    it("refuses a uid change onto any other page's uid, whatever the documents' order", async () => {
      const service = await start();
      const others = (await client(service).getAllByType("page")).filter((doc) => doc.id !== ABOUT);
      expect(others.length).toBeGreaterThan(3);
      for (const other of others) {
        const result = await call(service, "POST", "/admin/publish", {
          upsert: [{ ...demoDoc(ABOUT), uid: other.uid }],
        });
        expect(result.status, `about → ${other.uid}`).toBe(422);
        expect(result.body.issues[0]).toMatchObject({ id: ABOUT, path: "uid" });
      }
      expect((await client(service).getByID(ABOUT)).uid).toBe("about");
    });

    it("refuses a draft of a new document that takes a published uid", async () => {
      const service = await start();
      const draft = await call(service, "PUT", "/admin/drafts/NewDraftPage0002", copyWithoutId("about"));
      expect(draft.status).toBe(422);
      expect(draft.body.issues[0]).toMatchObject({ path: "uid" });
    });
  });

  it("refuses the whole edit when one document of several is bad", async () => {
    const service = await start();
    const good = retitled(demoDoc(ABOUT), "Changed");
    const bad = { ...demoDoc(WEBSITES), data: { ...demoDoc(WEBSITES).data, currency: "DOGE" } };
    const result = await call(service, "POST", "/admin/publish", { upsert: [good, bad] });
    expect(result.status).toBe(422);
    expect(result.body.issues[0]).toMatchObject({ id: WEBSITES, path: "data.currency" });
    expect(titleOf(await client(service).getByID(ABOUT))).not.toBe("Changed");
  });

  it("answers malformed JSON and a wrong body shape with a clear 400", async () => {
    const service = await start();
    const malformed = await call(service, "POST", "/admin/publish", undefined, '{"upsert": [');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/JSON/i);
    const shape = await call(service, "POST", "/admin/publish", { upsert: { id: "x" } });
    expect(shape).toMatchObject({ status: 400, body: { message: '"upsert" must be an array' } });
  });

  it("still publishes when the webhook receiver is down, and says so", async () => {
    const hook = await receiver();
    const deadUrl = hook.url;
    await hook.close();
    const service = await start({ webhookUrl: deadUrl, webhookSecret: SECRET });
    const result = await call(service, "POST", "/admin/publish", { upsert: [retitled(demoDoc(ABOUT), "x")] });
    expect(result.status).toBe(200);
    expect(result.body.webhook).toMatchObject({ status: "failed" });
    expect(service.store.masterRef).toBe(result.body.masterRef);
  });

  it("sends a test-trigger on request", async () => {
    const hook = await receiver(200);
    const service = await start({ webhookUrl: hook.url, webhookSecret: SECRET });
    expect((await call(service, "POST", "/admin/webhook/test")).body).toEqual({ webhook: { status: 200 } });
    expect(JSON.parse(hook.requests[0]?.body ?? "{}")).toEqual({
      type: "test-trigger",
      domain: "demo",
      apiUrl: `${service.url}/api`,
      secret: SECRET,
    });
  });
});

describe("edit API: refs over time and restarts", () => {
  it("answers 410 for a ref that fell out of the history, 404 for one it never had", async () => {
    const service = await start({ refHistory: 1 });
    const first = service.store.masterRef;
    await call(service, "POST", "/admin/publish", { upsert: [retitled(demoDoc(ABOUT), "one")] });
    const second = service.store.masterRef;
    await call(service, "POST", "/admin/publish", { upsert: [retitled(demoDoc(ABOUT), "two")] });
    const status = async (ref: string) =>
      (await fetch(`${service.endpoint}/documents/search?ref=${ref}`)).status;
    expect(await status(second)).toBe(200);
    expect(await status(first)).toBe(410);
    expect(await status("NeverExisted0001")).toBe(404);
    const body = await (await fetch(`${service.endpoint}/documents/search?ref=${first}`)).json();
    expect(body.message).toContain(`Master ref is: ${service.store.masterRef}`);
  });

  it("shows each past ref as it was, in creation order, after later edits replaced and removed its documents", async () => {
    const service = await start();
    const search = async (ref: string) =>
      (await call(service, "GET", `/api/v2/documents/search?ref=${ref}&pageSize=100`)).body;
    const first = service.store.masterRef;
    const before = await search(first);
    await call(service, "POST", "/admin/publish", { upsert: [retitled(demoDoc(ABOUT), "one")] });
    const second = service.store.masterRef;
    await call(service, "POST", "/admin/publish", { remove: [WEBSITES] });
    const third = service.store.masterRef;
    await call(service, "POST", "/admin/publish", { upsert: [retitled(demoDoc(ABOUT), "two")] });
    // Each past ref made from the edits since (only the last two asked for are kept made).
    for (const ref of [third, second, first])
      expect((await search(ref)).total_results_size).toBeGreaterThan(0);
    const again = await search(first);
    expect(again.results.map((doc: { id: string }) => doc.id)).toEqual(
      before.results.map((doc: { id: string }) => doc.id),
    );
    expect(again.results).toEqual(before.results);
    const titleAt = async (ref: string) => titleOf(await client(service).getByID(ABOUT, { ref }));
    expect(await titleAt(second)).toBe("one");
    expect(await titleAt(third)).toBe("one");
    expect(await titleAt(service.store.masterRef)).toBe("two");
    expect((await search(second)).results.some((doc: { id: string }) => doc.id === WEBSITES)).toBe(true);
  });

  it("refuses to start past its document limit, and an edit that would go past it, saying what to do", async () => {
    const demoCount = readdirSync(DEMO).filter((name) => name.endsWith(".json")).length;
    await expect(start({ maxDocuments: demoCount - 1 })).rejects.toThrow(
      `holds at most ${demoCount - 1} documents`,
    );
    const service = await start({ maxDocuments: demoCount });
    const { id: _id, ...copy } = retitled(demoDoc(ABOUT), "A copy");
    const refused = await call(service, "POST", "/admin/publish", { upsert: [{ ...copy, uid: "a-copy" }] });
    expect(refused.status).toBe(422);
    expect(refused.body.issues[0].message).toMatch(/holds at most \d+ documents .*Prismic itself/);
  });

  it("keeps every edit across a restart", async () => {
    const first = await startLocalPrismic();
    const published = await call(first, "POST", "/admin/publish", {
      upsert: [retitled(demoDoc(ABOUT), "Persisted")],
    });
    await first.close();
    // Both services share the folder: removed after the second stops.
    cleanups.push(() => rm(first.dataDir, { recursive: true, force: true }));
    const second = await startLocalPrismic({ dataDir: first.dataDir });
    cleanups.push(() => second.stop());
    expect(second.store.masterRef).toBe(published.body.masterRef);
    expect(titleOf(await client(second).getByID(ABOUT))).toBe("Persisted");
  });
});

describe("edit API: drafts and preview tokens", () => {
  it("shows a draft only at its preview ref, until it is published", async () => {
    const service = await start();
    const draft = await call(
      service,
      "PUT",
      `/admin/drafts/${ABOUT}`,
      retitled(demoDoc(ABOUT), "Draft title"),
    );
    expect(draft.status).toBe(200);
    const token = draft.body.token as string;
    expect(token).toMatch(new RegExp(`^${service.url}/previews/[\\w-]{16}\\?websitePreviewId=[\\w-]{16}$`));

    // A new client for each read: @prismicio/client caches the master ref for 5 s.
    const title = async (ref?: string) => titleOf(await client(service).getByID(ABOUT, ref ? { ref } : {}));
    expect(await title(token)).toBe("Draft title");
    expect(await title()).toBe("About Northwind Studio");
    // The same token read back from a cookie, URL-encoded once more, still works.
    expect(
      (await fetch(`${service.endpoint}/documents/search?ref=${encodeURIComponent(token)}`)).status,
    ).toBe(200);

    await call(service, "POST", "/admin/publish", { upsert: [retitled(demoDoc(ABOUT), "Published title")] });
    expect(await title()).toBe("Published title");
    expect(await title(token)).toBe("Published title");
  });

  it("shows a new, never-published document in preview, and refuses an invalid draft", async () => {
    const service = await start();
    const { id: _id, ...about } = demoDoc(ABOUT);
    const draft = await call(service, "PUT", "/admin/drafts/NewDraftPage0001", { ...about, uid: "new-page" });
    expect(draft.status).toBe(200);
    expect((await client(service).getByUID("page", "new-page", { ref: draft.body.token })).id).toBe(
      "NewDraftPage0001",
    );
    await expect(client(service).getByUID("page", "new-page")).rejects.toBeInstanceOf(prismic.NotFoundError);
    const bad = await call(service, "PUT", `/admin/drafts/${ABOUT}`, {
      ...demoDoc(ABOUT),
      data: { ...demoDoc(ABOUT).data, title: "plain" },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.issues[0].path).toBe("data.title");
  });

  it("answers an expired preview token as Prismic does", async () => {
    const service = await start({ previewTtlMs: 200 });
    const { body } = await call(
      service,
      "PUT",
      `/admin/drafts/${ABOUT}`,
      retitled(demoDoc(ABOUT), "Soon gone"),
    );
    await new Promise((resolve) => setTimeout(resolve, 250)); // past the token's 200 ms lifetime
    const answer = await fetch(`${service.endpoint}/documents/search?ref=${encodeURIComponent(body.token)}`);
    expect(answer.status).toBe(404);
    // The body Prismic sends (prismic-client's recorded PreviewTokenExpiredError body): the OAuth
    // endpoints of the API root beside the type and message.
    expect(await answer.json()).toEqual({
      type: "api_security_error",
      message: "This preview token has expired",
      oauth_initiate: `${service.url}/auth`,
      oauth_token: `${service.url}/auth/token`,
    });
    await expect(client(service).getByID(ABOUT, { ref: body.token })).rejects.toBeInstanceOf(
      prismic.PreviewTokenExpiredError,
    );
  });
});
