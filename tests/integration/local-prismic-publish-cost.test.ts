import { readdirSync, readFileSync } from "node:fs";
import { appendFile, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateRepository } from "#local-prismic/generate.ts";
import { modelsFromFiles } from "#local-prismic/models.ts";
import type { DocumentSet } from "#local-prismic/query/document-set.ts";
import { type PrismicDocument, searchDocuments } from "#local-prismic/query/index.ts";
import { ContentStore, type StoreWork } from "#local-prismic/store.ts";
import { website } from "#website";
import { tempDir } from "../support/temp-dir.ts";

/**
 * What a publish costs the local content service must not grow with the repository: counted, not
 * timed (bytes and files written, documents copied, index entries changed, documents a search
 * reads), on a small and a larger generated repository, for the same edits.
 */

const DEMO = new URL("../../services/local-prismic/demo/documents/", import.meta.url).pathname;
const ABOUT = JSON.parse(readFileSync(`${DEMO}Z9nWuhEAACMAx1Cc.json`, "utf8")) as PrismicDocument;
const PROBE = "CostProbePage001";
/** A page that exists in neither repository, the same in both: the edits write the same bytes. */
const probe = (title: string) => ({
  ...ABOUT,
  id: PROBE,
  uid: "cost-probe",
  data: { ...ABOUT.data, title: [{ type: "heading1", text: title, spans: [] }] },
});
const NOW = new Date(Date.UTC(2026, 10, 28, 12));

/** A generated repository, typed as the service holds documents. */
const generated = (pages: number, seed: number) =>
  generateRepository({ pages, priceLists: 3, seed }) as unknown as PrismicDocument[];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openStore(
  seed: readonly PrismicDocument[],
  options: { dataDir?: string; refHistory?: number } = {},
): Promise<{ store: ContentStore; dataDir: string }> {
  let dataDir = options.dataDir;
  if (!dataDir) {
    const dir = await tempDir("content-cost");
    cleanups.push(dir.remove);
    dataDir = dir.path;
  }
  const store = await ContentStore.open({
    dataDir,
    models: modelsFromFiles(website.projectDir),
    seed: () => seed,
    refHistory: options.refHistory ?? 2,
    previewTtlMs: 60_000,
    previewToken: (session) => `http://127.0.0.1/previews/${session}`,
    now: () => NOW,
  });
  return { store, dataDir };
}

const difference = (after: StoreWork, before: StoreWork): StoreWork => ({
  documentsCopied: after.documentsCopied - before.documentsCopied,
  indexEntriesTouched: after.indexEntriesTouched - before.indexEntriesTouched,
  files: after.files - before.files,
  bytes: after.bytes - before.bytes,
  listed: after.listed - before.listed,
});

/** The master's set, with every document a search reads through it counted. */
function counted(set: DocumentSet): { set: DocumentSet; read: () => number } {
  let read = 0;
  const each = function* (docs: Iterable<PrismicDocument>) {
    for (const doc of docs) {
      read++;
      yield doc;
    }
  };
  const byId = {
    get: (id: string) => set.byId.get(id),
    has: (id: string) => set.byId.has(id),
    get size() {
      return set.byId.size;
    },
    values: () => each(set.byId.values()),
  } as unknown as ReadonlyMap<string, PrismicDocument>;
  const { ofType, withUid } = set;
  return {
    set: {
      byId,
      placeOf: (doc) => set.placeOf(doc),
      ...(ofType ? { ofType: (type: string) => each(ofType.call(set, type)) } : {}),
      ...(withUid ? { withUid: (type: string, uid: string) => [...each(withUid.call(set, type, uid))] } : {}),
    },
    read: () => read,
  };
}

const search = (
  docs: readonly PrismicDocument[] | DocumentSet,
  ref: string,
  params: Record<string, string>,
) =>
  searchDocuments(docs as never, new URLSearchParams(params), {
    ref,
    apiBase: "http://127.0.0.1/api/v2",
    masterLang: "en-us",
    knownTypes: ["page", "price_list", "settings"],
  });

/** The work of the edits below, on a repository of `pages` pages. */
async function editCosts(pages: number) {
  const seed = generated(pages, 1);
  const tags = [...new Set([...seed, ABOUT].flatMap((doc) => doc.tags))].sort();
  const { store } = await openStore(seed);
  const costs: StoreWork[] = [];
  const reads: number[] = [];
  // A new page, then three edits of it: the last two drop a past ref out of the history (2 kept).
  for (const title of ["Probe", "Probe, edited", "Probe, edited again", "Probe, last"]) {
    const before = store.work;
    const previous = store.masterRef;
    await store.publish({ upsert: [probe(title)] });
    // A build that started before reads on at the previous ref: made from the undos, not copied.
    const past = search(store.snapshot(previous).documents, previous, {
      q: `[[at(document.id, "${PROBE}")]]`,
    });
    expect(past.results).toHaveLength(title === "Probe" ? 0 : 1);
    // What a worker reads next: the API root (its tags) and the changed document by id.
    expect(store.masterTags).toEqual(tags);
    const { set, read } = counted(store.snapshot(store.masterRef).documents);
    const found = search(set, store.masterRef, { q: `[[in(document.id, ["${PROBE}"])]]` });
    expect(found.results.map((doc) => doc.id)).toEqual([PROBE]);
    costs.push(difference(store.work, before));
    reads.push(read());
  }
  return { costs, reads, documents: store.masterCount };
}

describe("local content service: a publish costs what it changes", () => {
  it("writes, copies and indexes the same for one document at 40 pages and at 1,000", async () => {
    const small = await editCosts(40);
    const large = await editCosts(1_000);
    expect(large.documents).toBeGreaterThan(small.documents * 20);
    expect(large.costs).toEqual(small.costs);
    expect(large.reads).toEqual(small.reads);
    for (const cost of large.costs) {
      expect(cost.documentsCopied).toBe(0);
      expect(cost.listed).toBe(0);
      // The object file and one line of the log; bytes: the document's JSON and the line.
      expect(cost.files).toBe(2);
      expect(cost.bytes).toBeLessThan(20_000);
    }
    // The changed document is read from the index by id: the search reads no list of documents.
    expect(large.reads).toEqual([0, 0, 0, 0]);
  }, 60_000);

  it("reads a singleton or a page by uid from its indexes, and answers as reading every document does", async () => {
    const { store } = await openStore(generated(300, 2));
    await store.publish({ upsert: [probe("Probe")] });
    const ref = store.masterRef;
    const list = store.masterDocuments;
    const pages = list.filter((doc) => doc.type === "page");
    const [first, second] = [pages[7]?.uid, pages[200]?.uid] as [string, string];
    const queries: Record<string, string>[] = [
      { q: '[[at(document.type, "settings")]]' },
      { q: `[[at(my.page.uid, "${second}")]]` },
      { q: `[[in(my.page.uid, ["${second}", "${first}", "cost-probe", "nowhere"])]]`, pageSize: "100" },
      { q: `[[any(my.page.uid, ["${first}", "cost-probe"])]]`, lang: "*" },
      { q: '[[at(document.type, "price_list")]]', orderings: "[my.price_list.title desc]" },
      { q: `[[not(my.page.uid, "${first}")]]`, page: "2", pageSize: "50" },
      { q: "[[has(my.page.meta_title)]]", pageSize: "100" },
      { q: `[[at(document.type, "page")][at(my.page.uid, "${first}")]]` },
    ];
    for (const params of queries) {
      const { set, read } = counted(store.snapshot(ref).documents);
      // The plain list has no type or uid index: the search reads every document of it.
      expect(search(set, ref, params)).toEqual(search(list, ref, params));
      if (params.q?.includes('"settings"')) expect(read()).toBe(1);
      if (params.q?.startsWith("[[at(my.page.uid")) expect(read()).toBe(1);
      if (params.q?.startsWith("[[in(my.page.uid")) expect(read()).toBe(3);
      if (params.q?.includes('"price_list"')) expect(read()).toBe(3);
    }
  }, 60_000);
});

describe("local content service: its folder", () => {
  it("appends a publish to the log, folds the log into state.json on start, and keeps every edit", async () => {
    const seed = generated(20, 3);
    const { store, dataDir } = await openStore(seed);
    const stateBefore = await readFile(join(dataDir, "state.json"), "utf8");
    const refs = [];
    for (const title of ["Probe", "Probe, edited"])
      refs.push((await store.publish({ upsert: [probe(title)] })).masterRef);
    // state.json is as it was; the log holds two lines.
    expect(await readFile(join(dataDir, "state.json"), "utf8")).toBe(stateBefore);
    const logs = (await readdir(dataDir)).filter((name) => name.endsWith(".jsonl"));
    expect(logs).toHaveLength(1);
    const lines = (await readFile(join(dataDir, logs[0] as string), "utf8")).trim().split("\n");
    expect(lines.map((line) => JSON.parse(line).masterRef)).toEqual(refs);
    const reopened = (await openStore([], { dataDir })).store;
    expect(reopened.masterRef).toBe(store.masterRef);
    expect(reopened.masterDocuments.map((doc) => doc.id)).toEqual(store.masterDocuments.map((doc) => doc.id));
    const state = JSON.parse(await readFile(join(dataDir, "state.json"), "utf8"));
    expect(state.masterRef).toBe(store.masterRef);
    expect(Object.keys(state.documents)).toHaveLength(seed.length + 1);
    // The folded log is gone (the new one is made by the next change).
    expect((await readdir(dataDir)).filter((name) => name.endsWith(".jsonl") && name !== state.log)).toEqual(
      [],
    );
  }, 60_000);

  it("reads a log cut short by a crash as the state before the change that did not finish", async () => {
    const seed = generated(20, 3);
    const { store, dataDir } = await openStore(seed);
    await store.publish({ upsert: [probe("Probe")] });
    const kept = store.masterRef;
    const state = JSON.parse(await readFile(join(dataDir, "state.json"), "utf8"));
    // Half a line: the write of the next publish, interrupted.
    await appendFile(join(dataDir, state.log), '{"masterRef":"CutShort00000001","set":{"CostPro');
    const reopened = (await openStore([], { dataDir })).store;
    expect(reopened.masterRef).toBe(kept);
    // Folded on start: the next publish is appended to a log without the broken line.
    await reopened.publish({ upsert: [probe("After the crash")] });
    const again = (await openStore([], { dataDir })).store;
    expect(again.masterRef).toBe(reopened.masterRef);
  }, 60_000);

  it("removes a document's older files once no kept ref shows them", async () => {
    const seed = generated(20, 3);
    const { store, dataDir } = await openStore(seed, { refHistory: 2 });
    const files = () => readdirSync(join(dataDir, "objects")).filter((name) => name.startsWith(PROBE)).length;
    for (const [n, title] of ["one", "two", "three", "four", "five"].entries()) {
      await store.publish({ upsert: [probe(title)] });
      // The master's file and, for each of the two kept past refs, the one it shows (none before the first).
      expect(files()).toBe(Math.min(n + 1, 3));
    }
    await store.publish({ remove: [PROBE] });
    expect(files()).toBe(2);
    for (const title of ["six", "seven"])
      await store.publish({ upsert: [{ ...probe(title), uid: "other" }] });
    expect(store.masterDocuments.filter((doc) => doc.id === PROBE)).toHaveLength(1);
  }, 60_000);
});
