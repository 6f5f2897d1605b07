import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PrismicDocument } from "@prismicio/client";
import * as prismicMock from "@prismicio/mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemorySource } from "#content/source.ts";
import { generateRepository, mulberry32 } from "#local-prismic/generate.ts";
import { loadModels } from "#local-prismic/models.ts";
import { resolveRedirects } from "#redirects/resolve-redirects.ts";
import { buildSiteAssets, type SiteAssets } from "#web/assets.ts";
import { documentNotices } from "#web/content/index.ts";
import { REDIRECT_TYPE, redirectRuleOf } from "#web/redirects/redirect-rules.ts";
import type { RenderMode } from "#web/render.ts";
import {
  ERROR_PAGE_ROUTES,
  PRICE_LIST_INDEX_ROUTE,
  ROBOTS_ROUTE,
  routeForDocument,
  SITEMAP_ROUTE,
} from "#web/routes.ts";
import { website } from "#web/website.ts";
import { localContentClient } from "../support/content-client.ts";
import {
  describePath,
  type FieldPath,
  fieldPaths,
  type Mutation,
  mutate,
  mutateSlices,
} from "../support/field-mutations.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { tempDir } from "../support/temp-dir.ts";

/**
 * Model evolution: when a field is added in Slice Machine, documents published before
 * do not have it until they are published again, and Prismic serves them as they are. For every
 * custom type in customtypes/ and every slice model in web/slices/, documents are generated from
 * the models with @prismicio/mock (through the local content service, so urls come from the real
 * route resolver); then each field is taken away in turn (absent, then `null`) and in seeded random
 * subsets (absent, `null` or emptied), and every route is rendered from memory. Every route must
 * render, with no `undefined`, `[object Object]`, `NaN` or `null` in the HTML, and no empty
 * `href`/`src`. MODEL_EVOLUTION_SEED changes the repository and the subsets; MODEL_EVOLUTION_SUBSETS
 * how many subsets are tried. A failure names the seed to replay it.
 */
const SEED = Number(process.env.MODEL_EVOLUTION_SEED ?? 20_261_125);
const SUBSETS = Number(process.env.MODEL_EVOLUTION_SUBSETS ?? 16);
const REPLAY = `seed ${SEED} (replay: MODEL_EVOLUTION_SEED=${SEED})`;
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SITE_URL = "https://www.example.com";
const models = loadModels(ROOT);
/** Prismic's own empty document (prismic-client test/__fixtures__/emptyDocument.json, tests/support/fixtures/SOURCES.md): a page with `data: {}`. */
const EMPTY_DOCUMENT = JSON.parse(
  readFileSync(join(ROOT, "tests/support/fixtures/prismic-client.emptyDocument.json"), "utf8"),
) as PrismicDocument;

let service: LocalPrismic;
let assets: SiteAssets;
/** The generated repository as the content API returns it (urls filled by the route resolver). */
let base: PrismicDocument[];

beforeAll(async () => {
  const generated = repository();
  const seed = await tempDir("model-evolution");
  await mkdir(join(seed.path, "documents"));
  for (const doc of generated)
    await writeFile(join(seed.path, "documents", `${doc.id}.json`), JSON.stringify(doc));
  service = await startLocalPrismic({ seedDir: seed.path });
  const client = localContentClient(service.endpoint);
  base = (await client.get({ ref: await client.fetchMasterRef(), pageSize: 100 })).results;
  assets = (await buildSiteAssets()).assets;
  await seed.remove();
});
afterAll(() => service?.stop());

/** The smallest generated repository whose pages use every slice model (so each is tested), with redirects. */
function repository(): PrismicDocument[] {
  const settings = mockedSettings();
  for (const pages of [6, 8, 10, 14, 20, 30]) {
    const docs = generateRepository({ pages, priceLists: 2, seed: SEED, models, settings });
    const used = new Set(
      docs.flatMap((d) => ((d.data.slices ?? []) as { slice_type: string }[]).map((s) => s.slice_type)),
    );
    if (models.slices.every((slice) => used.has(slice.id))) return [...docs, ...mockedRedirects(docs)];
  }
  throw new Error(`${REPLAY}: 30 generated pages do not use every slice model; try another seed`);
}

/**
 * Redirect documents from their model: one as the mock makes it (a From path of
 * words, a link of any kind), one to a generated page and one to a web address, so that taking
 * their fields away leaves something that was served.
 */
function mockedRedirects(docs: readonly PrismicDocument[]): PrismicDocument[] {
  const model = models.customTypes.find((m) => m.id === REDIRECT_TYPE);
  const page = docs.find((doc) => doc.type === "page" && doc.uid !== "home") as PrismicDocument;
  const targets = [
    undefined,
    {
      link_type: "Document",
      id: page.id,
      type: "page",
      uid: page.uid,
      lang: page.lang,
      tags: [],
      isBroken: false,
    },
    { link_type: "Web", url: "https://shop.example.com/sale" },
  ];
  return targets.map((to, i) => {
    const doc = prismicMock.value.document({
      seed: `redirect:${SEED}:${i}`,
      model,
      withURL: false,
    }) as unknown as PrismicDocument;
    const data = i === 0 ? doc.data : { ...doc.data, from_path: `/old-address-${i}`, to };
    return { ...doc, id: `MockRedirect${String(i).padStart(4, "0")}`, lang: "en-us", data };
  });
}

/**
 * What an editor's redirect (a `redirect` document) does over `docs`: resolved as a build resolves
 * them, never a throw; each one served or said why not, in words with no JavaScript value in them.
 */
function redirectProblems(variant: string, docs: readonly PrismicDocument[]): string[] {
  const rules = docs.filter((doc) => doc.type === REDIRECT_TYPE).map(redirectRuleOf);
  const routes = new Map(docs.map((doc) => [doc.id, routeForDocument(doc)]));
  const pages = new Set([...routes.values()].flatMap((route) => route ?? []));
  try {
    const { served, notices } = resolveRedirects({
      siteUrl: SITE_URL,
      rules,
      routeOf: (id) => routes.get(id),
      isPage: (path) => pages.has(path),
    });
    const problems: string[] = [];
    for (const rule of rules) {
      const servedHere = [...served.values()].some((r) => r.documentId === rule.id);
      if (!servedHere && !notices.some((n) => n.documentId === rule.id && !n.served))
        problems.push(`${variant} redirect ${rule.id}: neither served nor said why`);
    }
    for (const notice of notices)
      if (/\bundefined\b|\bnull\b|\[object|NaN/.test(notice.message))
        problems.push(`${variant} redirect ${notice.documentId}: ${notice.message}`);
    return problems;
  } catch (error) {
    return [`${variant}: resolving the redirects threw ${(error as Error).message}`];
  }
}

/** The settings document from its model too (the generator would copy the demo's), with the formats the edit API checks. */
function mockedSettings(): PrismicDocument {
  const model = models.customTypes.find((m) => m.id === "settings");
  const doc = prismicMock.value.document({
    seed: `settings:${SEED}`,
    model,
    withURL: false,
  }) as unknown as PrismicDocument;
  Object.assign(doc.data, { contact_phone: "+14155550123", contact_email: "hello@example.com" });
  // The mock ignores `select: "web"` on the profile links at times.
  for (const item of doc.data.social_links as { link: { link_type: string } }[])
    if (item.link.link_type !== "Web")
      item.link = { link_type: "Web", url: "https://social.example/profile" } as never;
  return { ...doc, lang: "en-us" };
}

/** What must never reach a visitor: a JavaScript value's spelling, or a link or image with no address. */
function problemsIn(html: string): string[] {
  const found: string[] = [];
  const text = html.replace(/<script\b[\s\S]*?<\/script>/g, "").replace(/<[^>]*>/g, " ");
  for (const [name, pattern] of [
    ["undefined", /\bundefined\b/],
    ["[object Object]", /\[object Object\]/],
    ["NaN", /\bNaN\b/],
  ] as const) {
    const at = html.search(pattern);
    if (at !== -1) found.push(`${name} in …${html.slice(Math.max(0, at - 80), at + 40)}…`);
  }
  const nullAt = text.search(/\bnull\b/);
  if (nullAt !== -1) found.push(`"null" in the text: …${text.slice(Math.max(0, nullAt - 60), nullAt + 20)}…`);
  for (const match of html.matchAll(/<(\w+)\b[^>]*?\s(href|src|srcSet|action)=""[^>]*>/g))
    found.push(`empty ${match[2]} on <${match[1]}>: ${match[0].slice(0, 120)}`);
  for (const match of html.matchAll(/<meta property="og:(image|url)" content=""/g))
    found.push(`empty og:${match[1]}`);
  return found;
}

/** Every route of `docs` (pages, price lists, listings, error pages), or those `only` keeps. */
function routesOf(
  docs: readonly PrismicDocument[],
  only?: (route: string, doc?: PrismicDocument) => boolean,
) {
  const own = docs.flatMap((doc) => {
    const route = routeForDocument(doc);
    return route === null ? [] : [[route, doc] as [string, PrismicDocument]];
  });
  const all: [string, PrismicDocument | undefined][] = [
    ...own,
    ...[PRICE_LIST_INDEX_ROUTE, SITEMAP_ROUTE, ROBOTS_ROUTE, ...ERROR_PAGE_ROUTES].map(
      (route) => [route, undefined] as [string, undefined],
    ),
  ];
  return all.filter(([route, doc]) => !only || only(route, doc)).map(([route]) => route);
}

/** Renders `routes` over `docs`; what went wrong, each line naming the variant and the route. */
async function check(
  variant: string,
  docs: readonly PrismicDocument[],
  routes: readonly string[],
  mode: RenderMode = "production",
): Promise<string[]> {
  const source = createMemorySource(docs);
  const problems: string[] = redirectProblems(variant, docs);
  for (const route of routes) {
    try {
      const result = await website.render(route, { source, siteUrl: SITE_URL, assets, mode });
      const expected = route === "404" ? 404 : ERROR_PAGE_ROUTES.includes(route) ? Number(route) : 200;
      if (result.status !== expected) problems.push(`${variant} ${route}: status ${result.status}`);
      for (const problem of problemsIn(result.html)) problems.push(`${variant} ${route}: ${problem}`);
    } catch (error) {
      problems.push(`${variant} ${route}: threw ${(error as Error).message}`);
    }
  }
  return problems;
}

const hasSlice = (doc: PrismicDocument | undefined, type: string) =>
  Array.isArray(doc?.data.slices) &&
  (doc.data.slices as { slice_type?: unknown }[]).some((s) => s.slice_type === type);

/**
 * The routes a field of `owner` shows on: its documents' and those listing or embedding them. For
 * settings, which every route shows the same way, one route of each kind (the random subsets below
 * render every route).
 */
function routesShowing(owner: string, docs: readonly PrismicDocument[]): string[] {
  if (owner === "settings") {
    const seen = new Set<string>();
    return routesOf(docs, (route, doc) => {
      const kind = doc ? `${doc.type}:${doc.uid === "home"}` : route;
      if (seen.has(kind)) return false;
      seen.add(kind);
      return true;
    });
  }
  if (owner === "price_list")
    return routesOf(
      docs,
      (route, doc) =>
        doc?.type === "price_list" || route === PRICE_LIST_INDEX_ROUTE || hasSlice(doc, "price_list_table"),
    );
  if (owner === "page") return routesOf(docs, (_route, doc) => doc?.type === "page");
  return routesOf(docs, (_route, doc) => hasSlice(doc, owner));
}

const paths = fieldPaths(models);

describe(`model evolution: every route renders whatever field an earlier model lacked (${REPLAY})`, () => {
  it("covers every custom type and slice model in the repository", () => {
    const owners = new Set(paths.map((p) => p.owner));
    for (const model of [...models.customTypes, ...models.slices])
      expect(owners.has(model.id), model.id).toBe(true);
    const used = new Set(
      base.flatMap((d) => ((d.data.slices ?? []) as { slice_type: string }[]).map((s) => s.slice_type)),
    );
    // A slice model no generated page uses would be tested by nothing: raise `pages` above.
    expect([...used].sort(), REPLAY).toEqual(models.slices.map((s) => s.id).sort());
    // Every custom type has documents to take fields away from (a redirect renders no route: its
    // fields are checked by resolving the redirects, in every variant below).
    const types = new Set(base.map((doc) => doc.type));
    for (const model of models.customTypes) expect(types.has(model.id), model.id).toBe(true);
    // The redirects to a page and to a web address are served as the repository stands.
    expect(redirectProblems("as generated", base)).toEqual([]);
    const routes = new Map(base.map((doc) => [doc.id, routeForDocument(doc)]));
    const served = resolveRedirects({
      siteUrl: SITE_URL,
      rules: base.filter((doc) => doc.type === REDIRECT_TYPE).map(redirectRuleOf),
      routeOf: (id) => routes.get(id),
      isPage: (path) => [...routes.values()].includes(path),
    }).served;
    expect([...served.keys()]).toEqual(["/old-address-1", "/old-address-2"]);
  });

  const owners = [...new Set(paths.map((p) => p.owner))];
  it.each(owners)("%s: each field absent, then null", async (owner) => {
    const problems: string[] = [];
    for (const path of paths.filter((p) => p.owner === owner)) {
      for (const mutation of ["absent", "null"] as const) {
        const docs = mutate(base, [[path, mutation]]);
        problems.push(
          ...(await check(`${describePath(path)} ${mutation}`, docs, routesShowing(owner, docs))),
        );
      }
    }
    expect(problems, REPLAY).toEqual([]);
  });

  it.each(owners)(
    "%s: each field holding a value of another kind (its type changed): converted or empty, and said",
    async (owner) => {
      const problems: string[] = [];
      for (const path of paths.filter((p) => p.owner === owner)) {
        const name = `${describePath(path)} retyped`;
        const docs = mutate(base, [[path, "retyped"]]);
        problems.push(...(await check(name, docs, routesShowing(owner, docs))));
        // Each document holding one tells editors which field, and what was made of it.
        docs.forEach((doc, i) => {
          if (doc === base[i]) return;
          const said = documentNotices(doc).some(
            (notice) => notice.kind === "converted" && notice.field.endsWith(path.field),
          );
          if (!said) problems.push(`${name}: no notice for ${doc.type} ${doc.id}`);
        });
      }
      expect(problems, REPLAY).toEqual([]);
    },
  );

  it.each(models.slices.map((s) => s.id))(
    "%s: slices with empty or absent primary and items, and a variation no model has",
    async (sliceType) => {
      const changes: [string, (slice: Record<string, unknown>) => void][] = [
        ["primary {}", (slice) => (slice.primary = {})],
        ["items []", (slice) => (slice.items = [])],
        [
          "no primary, no items",
          (slice) => {
            delete slice.primary;
            delete slice.items;
          },
        ],
        ["variation unknown", (slice) => (slice.variation = "brandNewLayout")],
      ];
      const problems: string[] = [];
      for (const [name, change] of changes) {
        const docs = mutateSlices(base, sliceType, change);
        for (const mode of ["production", "preview"] as const)
          problems.push(
            ...(await check(`${sliceType} ${name} (${mode})`, docs, routesShowing(sliceType, docs), mode)),
          );
      }
      expect(problems, REPLAY).toEqual([]);

      // A variation no model has renders as nothing for visitors, and as a note for editors.
      const docs = mutateSlices(base, sliceType, (slice) => (slice.variation = "brandNewLayout"));
      const route = routesShowing(sliceType, docs)[0] as string;
      const render = (mode: RenderMode) =>
        website.render(route, { source: createMemorySource(docs), siteUrl: SITE_URL, assets, mode });
      const production = (await render("production")).html;
      expect(production).not.toContain(`data-slice-type="${sliceType}"`);
      expect(production).not.toContain("slice-missing");
      const preview = (await render("preview")).html;
      expect(preview).toContain(
        `<p class="slice-missing" role="note" data-slice-type="${sliceType}">The slice &quot;${sliceType}&quot; has a variation (&quot;brandNewLayout&quot;) that no component renders yet`,
      );
    },
  );

  it(`random subsets of fields absent, null or empty (${SUBSETS} of them)`, async () => {
    const random = mulberry32(SEED);
    const mutations: Mutation[] = ["absent", "null", "empty"];
    const problems: string[] = [];
    for (let round = 0; round < SUBSETS; round++) {
      const changes: [FieldPath, Mutation][] = paths
        .filter(() => random() < 0.3)
        .map((path) => [path, mutations[Math.floor(random() * mutations.length)] as Mutation]);
      const docs = mutate(base, changes);
      const name = `subset ${round} [${changes.map(([p, m]) => `${describePath(p)} ${m}`).join(", ")}]`;
      problems.push(...(await check(name, docs, routesOf(docs))));
    }
    expect(problems, REPLAY).toEqual([]);
  });

  it("renders every route over fields no model has (ignored)", async () => {
    const docs = base.map((doc) => ({
      ...doc,
      data: { ...doc.data, retired_field: { a: [1, { b: "x" }] } },
    }));
    expect(await check("unknown fields", docs, routesOf(docs))).toEqual([]);
  });
});

describe("Prismic's empty document (data: {}), as each custom type", () => {
  const empty = (type: string, uid: string | null, id: string): PrismicDocument => ({
    ...EMPTY_DOCUMENT,
    id,
    type,
    uid,
    url: uid === null ? null : type === "page" ? `/${uid}` : `/price-list/${uid}`,
    data: {},
  });

  it("a page with data {} renders at its uid, titled by it", async () => {
    const docs = [...base, EMPTY_DOCUMENT];
    expect(EMPTY_DOCUMENT.data).toEqual({});
    expect(await check("emptyDocument page", docs, ["/test", "/", PRICE_LIST_INDEX_ROUTE])).toEqual([]);
    const { html } = await website.render("/test", {
      source: createMemorySource(docs),
      siteUrl: SITE_URL,
      assets,
      mode: "production",
    });
    expect(html).toMatch(/<h1 class="page-header__title">Test<\/h1>/);
  });

  it("settings with data {} and price lists with data {}: every route renders", async () => {
    const docs = [
      ...base.filter((doc) => doc.type === "page"),
      empty("settings", null, "XvoFFREAAM0WGBsn"),
      ...base
        .filter((doc) => doc.type === "price_list")
        .map((doc) => empty("price_list", doc.uid ?? null, doc.id)),
      EMPTY_DOCUMENT,
    ];
    expect(await check("emptyDocument settings and price lists", docs, routesOf(docs))).toEqual([]);
  });
});
