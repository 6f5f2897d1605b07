import { readFileSync } from "node:fs";
import type { PrismicDocument } from "@prismicio/client";
import Fastify, { type FastifyInstance } from "fastify";
import type { PrismicConfig } from "#config";
import { createContentClient, loadContentSchema } from "#content";
import { type PreviewAppOptions, previewApp } from "#preview/app.ts";
import { buildPreviewAssets, type PreviewAssets } from "#preview/preview-assets.ts";
import { type TokenRule, tokenRuleFor } from "#preview/preview-token.ts";
import { website } from "#website";
import { contentConfig } from "./content-client.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
export const DEMO_DIR = `${ROOT}services/local-prismic/demo/documents`;
export const ABOUT_ID = "Z9nWuhEAACMAx1Cc";
export const SITE_URL = "https://www.northwind.example";

export const demoDoc = (id: string) =>
  JSON.parse(readFileSync(`${DEMO_DIR}/${id}.json`, "utf8")) as PrismicDocument;

/** The about page with another title: what an editor's draft looks like. */
export function draftOfAbout(title: string): PrismicDocument {
  const doc = demoDoc(ABOUT_ID);
  return { ...doc, data: { ...doc.data, title: [{ type: "heading1", text: title, spans: [] }] } };
}

export function prismicConfig(endpoint: string): PrismicConfig {
  return contentConfig(endpoint, {
    timeoutMs: 3_000,
    cacheTtlMs: 0,
    cacheMaxEntries: 100,
    rateLimitRetries: 0,
  });
}

let assets: Promise<PreviewAssets> | undefined;

export interface PreviewFixture {
  app: FastifyInstance;
  /** Every request the content client made, in order. */
  requests: string[];
}

/** The preview app over a counting fetch, so tests can say "no request was made". */
export async function previewFixture(
  endpoint: string,
  rule?: TokenRule,
  extra: Partial<PreviewAppOptions> = {},
): Promise<PreviewFixture> {
  const requests: string[] = [];
  const counting: typeof fetch = (input, init) => {
    requests.push(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    return fetch(input, init);
  };
  const client = createContentClient(prismicConfig(endpoint), {
    routes: website.routes.resolver,
    schema: loadContentSchema(ROOT),
    fetch: counting,
  });
  assets ??= buildPreviewAssets();
  const level = process.env.TEST_LOG_LEVEL;
  const app = Fastify({ logger: level ? { level } : false, trustProxy: true });
  await app.register(previewApp, {
    client,
    repository: "demo",
    tokenRule: rule ?? tokenRuleFor(endpoint, "demo"),
    siteUrl: SITE_URL,
    assets: await assets,
    ...extra,
  });
  await app.ready();
  return { app, requests };
}

/** PUTs a draft into the local content service; returns its preview token. */
export async function putDraft(contentUrl: string, doc: PrismicDocument): Promise<string> {
  const response = await fetch(`${contentUrl}/admin/drafts/${doc.id}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(doc),
  });
  if (!response.ok) throw new Error(`draft refused: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

/** `name=value` of the first Set-Cookie header, to send back as a Cookie header. */
export function cookieOf(setCookie: string | string[] | undefined): string {
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  return (first ?? "").split(";")[0] ?? "";
}
