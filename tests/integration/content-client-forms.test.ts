import { Writable } from "node:stream";
import * as prismic from "@prismicio/client";
import { afterEach, describe, expect, it } from "vitest";
import { ContentQueryError } from "#errors";
import type { ApiRootSwitch } from "#local-prismic/app.ts";
import { createLogger } from "#logger";
import { localContentClient } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";

/**
 * The content client against API roots shaped as real repositories can be: without the tags form,
 * without the search ("everything") form, without forms at all, with or without a bookmark. Each
 * absence is said in the site spec's words (error catalogue: content query errors).
 */

const ABOUT = "Z9nWuhEAACMAx1Cc";
const services: LocalPrismic[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.stop();
});
async function start(apiRoot?: ApiRootSwitch) {
  const service = await startLocalPrismic(apiRoot ? { apiRoot } : {});
  services.push(service);
  return service;
}

describe("content client: the API root's forms and bookmarks", () => {
  it("reads tags through the tags form, as Prismic's API root offers it", async () => {
    const service = await start();
    const client = localContentClient(service.endpoint);
    const documents = await client.dangerouslyGetAll();
    const expected = [...new Set(documents.flatMap((doc) => doc.tags))].sort();
    expect(await client.getTags()).toEqual(expected);
    expect((await client.repositoryForm("everything")).action).toBe(`${service.endpoint}/documents/search`);
  });

  it("says 'Missing tags form' for a root without one (the upstream client silently used the deprecated list)", async () => {
    const service = await start({ omit: ["forms.tags"] });
    const client = localContentClient(service.endpoint);
    const error = await client.getTags().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContentQueryError);
    expect((error as Error).message).toContain("Missing tags form");
    expect((error as Error).message).toContain(service.endpoint);
    // What the upstream client does with the same root: no error, the deprecated list instead.
    const upstream = prismic.createClient("demo", { documentAPIEndpoint: service.endpoint });
    await expect(upstream.getTags()).resolves.toBeInstanceOf(Array);
  });

  it("says 'Missing everything form' for a root without the search form, also when probing at start", async () => {
    const service = await start({ omit: ["forms.everything"] });
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk, _enc, done) => done(void lines.push(String(chunk))) });
    const logger = createLogger({ name: "client", level: "info", destination, pretty: false });
    const client = localContentClient(service.endpoint, {}, { logger });
    await expect(client.repositoryForm("everything")).rejects.toThrow("Missing everything form");
    expect(await client.probe()).toBe(true);
    expect(lines.some((line) => line.includes("Missing everything form"))).toBe(true);
  });

  it("says 'Unable to access to form' for a root without forms", async () => {
    const service = await start({ omit: ["forms"] });
    const client = localContentClient(service.endpoint);
    await expect(client.getTags()).rejects.toThrow('Unable to access to form "tags"');
    await expect(client.repositoryForm("everything")).rejects.toThrow(
      'Unable to access to form "everything"',
    );
  });

  it("reads a bookmarked document, and says 'Error retrieving bookmarked id' for a missing bookmark or document", async () => {
    const service = await start({ bookmarks: { about: ABOUT, gone: "NoSuchDocument01" } });
    const client = localContentClient(service.endpoint);
    expect((await client.getByBookmark("about")).id).toBe(ABOUT);
    const missing = await client.getByBookmark("nope").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ContentQueryError);
    expect((missing as Error).message).toContain("Error retrieving bookmarked id");
    expect((missing as Error).message).toContain('"nope"');
    await expect(client.getByBookmark("gone")).rejects.toThrow(
      "Error retrieving bookmarked id NoSuchDocument01",
    );
  });
});
