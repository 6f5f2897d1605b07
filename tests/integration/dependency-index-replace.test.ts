/**
 * `DependencyIndex.replace`, as a diff build calls it: more routes than one command names
 * (ARGS_CHUNK), every one depending on the frame document, and the documents handed as a generator
 * that can be read once (a build reads them back from its temporary file as the commands are sent).
 * Real Redis; read back through the index's own questions.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARGS_CHUNK } from "#jobs/chunks.ts";
import {
  DependencyIndex,
  type IndexedDocument,
  type IndexedRoute,
} from "#worker/publish/dependency-index.ts";
import { indexedDocument, TEST_BUILT_WITH } from "../support/indexed-documents.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";

const PREFIX = `test-index-replace-${process.pid}-${Date.now()}`;
const ROUTES = ARGS_CHUNK * 2 + 500;
const route = (i: number) => `/page-${i}`;
const pageId = (i: number) => `Page${String(i).padStart(6, "0")}`;

let redis: Redis;
let index: DependencyIndex;
let documentsRead = 0;

/** The documents once, as a build hands them: a generator, counted as it is read. */
function* documents(): Generator<[string, IndexedDocument]> {
  yield ["Settings000001", indexedDocument("settings", null, { hash: "s" })];
  yield [
    "Redirect000001",
    {
      ...indexedDocument("redirect", null, { hash: "r" }),
      redirect: {
        id: "Redirect000001",
        from: "/spring-sale",
        to: { kind: "document", id: pageId(7) },
        permanent: true,
        published: "2026-11-01T10:00:00+0000",
      },
    },
  ];
  for (let i = 0; i < ROUTES; i++) {
    documentsRead++;
    yield [pageId(i), indexedDocument("page", route(i), { hash: `h${i}` })];
  }
}

beforeAll(async () => {
  redis = new Redis({ maxRetriesPerRequest: null });
  index = new DependencyIndex(redis, PREFIX);
  const routes = new Map<string, IndexedRoute>();
  for (let i = 0; i < ROUTES; i++)
    routes.set(route(i), {
      key: `page-${i}/index.html`,
      hash: `h${i}`,
      status: 200,
      documentId: pageId(i),
      dependencies: ["doc:Settings000001", `doc:${pageId(i)}`, `url:${pageId((i + 1) % ROUTES)}`],
    });
  await index.replace("ref-1", routes, documents(), TEST_BUILT_WITH);
});

afterAll(async () => {
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
});

describe("DependencyIndex.replace with more routes than one command names", () => {
  it("records every route under a dependency they all share, and each route under its own", async () => {
    const dependents = await index.dependents([
      "doc:Settings000001",
      `doc:${pageId(1234)}`,
      `url:${pageId(0)}`,
    ]);
    expect(new Set(dependents.get("doc:Settings000001"))).toEqual(
      new Set(Array.from({ length: ROUTES }, (_, i) => route(i))),
    );
    expect(dependents.get(`doc:${pageId(1234)}`)).toEqual([route(1234)]);
    expect(dependents.get(`url:${pageId(0)}`)).toEqual([route(ROUTES - 1)]);
  });

  it("reads the documents once and keeps each one, its redirect rule and the frame document's id", async () => {
    expect(documentsRead).toBe(ROUTES);
    const kept = await index.documents([pageId(0), pageId(ROUTES - 1), "Settings000001"]);
    expect(kept.get(pageId(ROUTES - 1))?.route).toBe(route(ROUTES - 1));
    expect(kept.get("Settings000001")?.type).toBe("settings");
    expect([...(await index.redirectRules()).keys()]).toEqual(["Redirect000001"]);
    expect(await redis.hget(`${PREFIX}:index:meta`, "frameDocument:settings")).toBe("Settings000001");
    expect(await index.ref()).toBe("ref-1");
    expect((await index.routes([route(2100)])).get(route(2100))?.dependencies).toContain(
      `doc:${pageId(2100)}`,
    );
  });

  it("replaced again, by routes read as they are sent, keeps no dependency only the last index had", async () => {
    // Half the routes, each depending on its own document only, handed as a diff build hands them:
    // an async generator, read once.
    async function* routes(): AsyncGenerator<[string, IndexedRoute]> {
      for (let i = 0; i < ROUTES; i += 2)
        yield [
          route(i),
          { key: `page-${i}/index.html`, hash: `n${i}`, status: 200, dependencies: [`doc:${pageId(i)}`] },
        ];
    }
    await index.replace("ref-2", routes(), documents(), TEST_BUILT_WITH);
    const depKeys = await redis.keys(`${PREFIX}:index:dep:*`);
    // The first index had ~2 × ROUTES + 1 of them: more than one SCAN page.
    expect(depKeys.sort()).toEqual(
      Array.from({ length: ROUTES / 2 }, (_, i) => `${PREFIX}:index:dep:doc:${pageId(i * 2)}`).sort(),
    );
    expect((await index.dependents([`doc:${pageId(2)}`])).get(`doc:${pageId(2)}`)).toEqual([route(2)]);
    expect((await index.routes([route(1)])).size).toBe(0);
    expect(await index.ref()).toBe("ref-2");
  });
});
