import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PrismicDocument } from "@prismicio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemorySource } from "#content/source.ts";
import { generateRepository } from "#local-prismic/generate.ts";
import { buildSiteAssets, type SiteAssets } from "#web/assets.ts";
import type { RenderMode } from "#web/render.ts";
import { ERROR_PAGE_ROUTES, PRICE_LIST_INDEX_ROUTE, routeForDocument } from "#web/routes.ts";
import { website } from "#web/website.ts";
import { localContentClient } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { tempDir } from "../support/temp-dir.ts";

/**
 * Every rendered page of a generated repository (documents filled from the models by
 * @prismicio/mock, so headings of every level in every slice, heroes anywhere) is valid HTML by
 * the Nu Html Checker (vnu, the W3C's): no error, and no heading level skipped (the outline's
 * `<h1>` is the page title; what editors write below it is shifted or clamped at render). The
 * generated pages go through the real local content service (urls from its route resolver), and
 * the demo's own pages too, in production and in preview. HTML_VALIDITY_SEED changes the generated repository.
 */
const SEED = Number(process.env.HTML_VALIDITY_SEED ?? 7);
const PAGES = 100;
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const VNU = join(ROOT, "node_modules/vnu-jar/build/dist/vnu.jar");
const SITE_URL = "https://www.example.com";
const javaMissing = spawnSync("java", ["-version"]).error !== undefined || !existsSync(VNU);
if (javaMissing) console.warn("html-validity: skipped, `java` or vnu.jar is missing on this machine");

let generated: LocalPrismic;
let demo: LocalPrismic;
let assets: SiteAssets;
let out: { path: string; remove: () => Promise<void> };
/** File name → route, of every page written for the checker. */
const routes = new Map<string, string>();

interface VnuMessage {
  type: string;
  subType?: string;
  url: string;
  message: string;
  extract?: string;
  lastLine?: number;
}

async function renderAll(
  documents: PrismicDocument[],
  prefix: string,
  mode: RenderMode = "production",
): Promise<void> {
  const source = createMemorySource(documents);
  const paths = [
    ...documents.flatMap((doc) => routeForDocument(doc) ?? []),
    PRICE_LIST_INDEX_ROUTE,
    ...ERROR_PAGE_ROUTES,
  ];
  for (const path of [...new Set(paths)].sort()) {
    const { html, contentType } = await website.render(path, {
      source,
      siteUrl: SITE_URL,
      assets,
      mode,
    });
    if (!contentType.startsWith("text/html")) continue;
    const name = `${prefix}-${routes.size}.html`;
    routes.set(name, `${prefix} ${path}`);
    await writeFile(join(out.path, name), html);
  }
}

async function documentsOf(service: LocalPrismic): Promise<PrismicDocument[]> {
  const client = localContentClient(service.endpoint);
  return client.dangerouslyGetAll({ ref: await client.fetchMasterRef() });
}

/** The checker's heading outline rule: a heading may go down one level at a time (h2 → h3, never h2 → h4). */
function skippedLevels(html: string): string[] {
  const skipped: string[] = [];
  let level = 0;
  for (const match of html.matchAll(/<h([1-6])[\s>]/g)) {
    const next = Number(match[1]);
    if (next > level + 1) skipped.push(`h${level} → h${next}`);
    level = next;
  }
  return skipped;
}

beforeAll(async () => {
  if (javaMissing) return;
  assets = (await buildSiteAssets()).assets;
  out = await tempDir("html-validity");
  const seed = join(out.path, "seed");
  await mkdir(join(seed, "documents"), { recursive: true });
  for (const doc of generateRepository({ pages: PAGES, priceLists: 4, seed: SEED }))
    await writeFile(join(seed, "documents", `${doc.id}.json`), JSON.stringify(doc));
  generated = await startLocalPrismic({ seedDir: seed });
  demo = await startLocalPrismic();
  await renderAll(await documentsOf(generated), "generated");
  await renderAll(await documentsOf(demo), "demo");
  // Preview renders through the same code, with editors' notes above the page.
  await renderAll(await documentsOf(demo), "demo-preview", "preview");
}, 120_000);
afterAll(async () => {
  await generated?.stop();
  await demo?.stop();
  await out?.remove();
});

describe.skipIf(javaMissing)(`every rendered page is valid HTML (seed ${SEED})`, () => {
  it("no heading skips a level, and the page title is the only <h1>", () => {
    const problems: string[] = [];
    for (const [name, route] of routes) {
      const html = readFileSync(join(out.path, name), "utf8");
      for (const skip of skippedLevels(html)) problems.push(`${route}: ${skip}`);
      const h1s = html.match(/<h1[\s>]/g)?.length ?? 0;
      if (h1s !== 1) problems.push(`${route}: ${h1s} <h1>`);
    }
    expect(problems).toEqual([]);
  });

  it("the Nu Html Checker reports no error on any page", () => {
    const files = [...routes.keys()].map((name) => join(out.path, name));
    // vnu exits 1 when it reports anything (warnings too): read its JSON, not its status.
    let report: string;
    try {
      report = execFileSync("java", ["-jar", VNU, "--format", "json", "--stdout", ...files], {
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });
    } catch (error) {
      report = (error as { stdout?: string }).stdout ?? "";
      if (!report) throw error;
    }
    const messages = (JSON.parse(report) as { messages: VnuMessage[] }).messages;
    const errors = messages
      .filter((m) => m.type === "error" || (m.type === "non-document-error" && m.subType !== "io"))
      .map((m) => {
        const name = m.url.slice(m.url.lastIndexOf("/") + 1);
        return `${routes.get(name) ?? name}:${m.lastLine ?? "?"}: ${m.message} [${m.extract?.trim() ?? ""}]`;
      });
    expect(errors).toEqual([]);
  }, 60_000);
});
