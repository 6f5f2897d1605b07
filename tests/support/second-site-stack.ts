/**
 * The engine publishing the second test website (tests/support/second-site) as OS processes, as a
 * deployment of that website would run it: `pressroom serve webhook|worker|site|preview` and
 * `pressroom build` with PRESSROOM_WEBSITE set, over the local content service started on the
 * website's own models with no demo data. Storage is a folder; Redis is the machine's, under a
 * prefix of the test's own.
 */
import { cp, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { PrismicDocument } from "@prismicio/client";
import { expect } from "vitest";
import { REDIRECTS_KEY } from "#manifest/redirects.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { type LocalPrismic, startLocalPrismic } from "./local-prismic.ts";
import { storedManifest } from "./manifest.ts";
import { type PressroomProcess, runPressroom, startPressroom } from "./pressroom-process.ts";
import { tempDir } from "./temp-dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
/** The website module the engine's processes load (relative to the checkout, as an operator sets it). */
export const SECOND_SITE = "tests/support/second-site/website.ts";
export const SECOND_SITE_DIR = `${ROOT}tests/support/second-site/`;
export const REPOSITORY = "blog";

/** The local content service on the second site's models, empty: documents come through its edit API. */
export async function startSecondSiteContent(options: { webhookUrl?: string; webhookSecret?: string } = {}) {
  const seed = await tempDir("second-site-seed");
  await mkdir(join(seed.path, "documents"));
  const content = await startLocalPrismic({
    repository: REPOSITORY,
    modelsDir: SECOND_SITE_DIR,
    seedDir: seed.path,
    ...options,
  });
  return {
    ...content,
    stop: async () => {
      await content.stop();
      await seed.remove();
    },
  } satisfies LocalPrismic;
}

/** Publishes through the edit API (a webhook follows when the service has a webhook URL). */
export async function publish(contentUrl: string, edit: { upsert?: PrismicDocument[]; remove?: string[] }) {
  const response = await fetch(`${contentUrl}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(edit),
  });
  if (response.status !== 200) throw new Error(`publish refused: ${await response.text()}`);
}

export function storeAt(folder: string): SiteStore {
  return createSiteStore({ url: `file://${folder}`, s3Endpoint: undefined, s3Region: "us-east-1" });
}

/** The environment every engine process of a test gets. */
export function engineEnv(prefix: string, storage: string, contentEndpoint: string, siteUrl: string) {
  return {
    PRESSROOM_WEBSITE: SECOND_SITE,
    PRISMIC_REPOSITORY: REPOSITORY,
    PRISMIC_ENDPOINT: contentEndpoint,
    REDIS_URL: "redis://127.0.0.1:6379",
    QUEUE_PREFIX: prefix,
    STORAGE_URL: `file://${storage}`,
    SITE_URL: siteUrl,
    HOST: "127.0.0.1",
    PORT: "0",
    OPS_PORT: "off",
    RENDER_THREADS: "1",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "info",
  };
}

export const listening = async (server: PressroomProcess) =>
  (await server.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1] as string;

export { startPressroom };

/** `pressroom build`, run to its end; throws with its output unless it exits 0. */
export async function pressroomBuild(env: Record<string, string>): Promise<string> {
  const { code, output } = await runPressroom(["build"], env);
  if (code !== 0) throw new Error(`pressroom build exited ${code}:\n${output}`);
  return output;
}

export { untilIdle } from "./until-idle.ts";

async function objects(store: SiteStore): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for await (const key of store.keys())
    if (!key.startsWith(".pressroom/")) found.set(key, (await store.get(key))?.body.toString("base64") ?? "");
  return found;
}

/**
 * Incremental ≡ full: the folder holds byte for byte what `pressroom build` of the same website at
 * the master ref writes into a fresh folder (given the same redirect history, as full-build-reference.ts
 * explains), and nothing else; the redirects agree. The reference build runs under another queue
 * prefix, so it does not mark the workers' index stale.
 */
export async function expectEqualsFullBuild(storage: string, env: Record<string, string>): Promise<void> {
  const reference = await tempDir("second-site-reference");
  try {
    await mkdir(join(reference.path, ".pressroom"), { recursive: true });
    await cp(join(storage, REDIRECTS_KEY), join(reference.path, REDIRECTS_KEY)).catch(() => undefined);
    await pressroomBuild({
      ...env,
      STORAGE_URL: `file://${reference.path}`,
      QUEUE_PREFIX: `${env.QUEUE_PREFIX}-reference`,
    });
    const [actualStore, expectedStore] = [storeAt(storage), storeAt(reference.path)];
    try {
      const [expected, actual] = await Promise.all([objects(expectedStore), objects(actualStore)]);
      expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [key, body] of expected)
        expect(actual.get(key), `${key} differs from a full build`).toBe(body);
      const text = async (from: SiteStore, key: string) => (await from.get(key))?.body.toString();
      expect(await text(actualStore, REDIRECTS_KEY)).toBe(await text(expectedStore, REDIRECTS_KEY));
      const redirects = async (from: SiteStore) => {
        const manifest = await storedManifest(from);
        return { redirects: manifest?.redirects ?? {}, temporary: manifest?.temporaryRedirects ?? [] };
      };
      expect(await redirects(actualStore)).toEqual(await redirects(expectedStore));
    } finally {
      await actualStore.close();
      await expectedStore.close();
    }
  } finally {
    await reference.remove();
  }
}

/** A post as an editor publishes it. */
export function post(
  id: string,
  uid: string,
  title: string,
  options: { date?: string; quote?: string } = {},
) {
  return document(id, "post", uid, {
    title: [{ type: "heading1", text: title, spans: [] }],
    published_on: options.date ?? "2026-03-01",
    slices: options.quote
      ? [
          {
            slice_type: "quote",
            variation: "default",
            version: "initial",
            id: `quote$${id}`,
            slice_label: null,
            primary: { text: [{ type: "paragraph", text: options.quote, spans: [] }], author: "An editor" },
            items: [],
          },
        ]
      : [],
  });
}

export function siteConfig(name: string, footer: string) {
  return document("SiteConfig000001", "site_config", null, { site_name: name, footer_text: footer });
}

/** An editor's moved address to a post. */
export function moved(id: string, from: string, to: PrismicDocument) {
  return document(id, "moved", null, {
    from,
    to: {
      link_type: "Document",
      id: to.id,
      type: to.type,
      uid: to.uid,
      lang: "en-us",
      tags: [],
      isBroken: false,
    },
  });
}

function document(
  id: string,
  type: string,
  uid: string | null,
  data: Record<string, unknown>,
): PrismicDocument {
  return {
    id,
    uid,
    type,
    url: null,
    href: "",
    tags: [],
    lang: "en-us",
    slugs: [],
    linked_documents: [],
    alternate_languages: [],
    data,
  } as unknown as PrismicDocument;
}
