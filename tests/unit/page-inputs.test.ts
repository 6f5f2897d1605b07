import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { type SiteStore, sha256 } from "#storage";
import { createMemoryStore } from "#storage/memory-store.ts";
import {
  EntryLog,
  openPageInputs,
  PAGE_INPUTS_KEY,
  type RecordsHeader,
  writePageInputs,
} from "#worker/build/page-inputs.ts";

const HEADER: RecordsHeader = {
  code: "c0de",
  shared: "5ha2ed",
  newest: "2026-05-10T20:04:00+0000",
  ref: "Cdo-NSWKnIUOHYhF",
  failed: 0,
};

/** Routes and ids a site really has, and the ones that test the file's reading: quotes, backslashes, non-ASCII. */
function entries(count: number): Map<string, string> {
  const made = new Map<string, string>([
    ["/", JSON.stringify({ hash: "a".repeat(32), inputs: "b".repeat(32) })],
    [
      '/quote"d\\path',
      JSON.stringify({ hash: "c".repeat(32), inputs: "d".repeat(32), islands: ["carousel"] }),
    ],
    ["/prix-réduits/ü", JSON.stringify({ hash: "e".repeat(32), inputs: '"quoted", and \\ back' })],
  ]);
  // Enough entries that lines cross the 64 KB chunks the file is inflated and read in.
  for (let i = 0; i < count; i++)
    made.set(
      `/page-${String(i).padStart(6, "0")}`,
      JSON.stringify({ hash: sha256(String(i)).slice(0, 32), inputs: sha256(`in${i}`).slice(0, 32) }),
    );
  return made;
}

function logOf(map: Map<string, string>): EntryLog {
  const log = new EntryLog();
  for (const [name, json] of map) log.add(name, json);
  return log;
}

async function write(store: SiteStore, pages: Map<string, string>, documents: Map<string, string>) {
  await writePageInputs(store, HEADER, logOf(pages), logOf(documents), "site-version");
}

describe("the page inputs file", () => {
  it("reads back every entry and the header a build wrote, through lines longer than a chunk", async () => {
    const store = createMemoryStore();
    const pages = entries(5_000);
    // A record longer than a chunk: its line is read across two or more.
    const documents = new Map([
      ["Z9nWsREAACUAx1Aa", JSON.stringify({ v: "2026-03-09T16:40:00+0000" })],
      [
        "ZlongRecordXXXXX",
        JSON.stringify({ v: "2026-03-09T16:40:00+0000", d: { text: "x".repeat(200_000) } }),
      ],
      ...entries(2_000),
    ]);
    await write(store, pages, documents);

    const stored = await openPageInputs(store);
    expect(stored?.header).toEqual(HEADER);
    const records = await stored?.read();
    expect(records?.pages).toEqual(pages);
    expect(records?.documents).toEqual(documents);
    expect(records).toMatchObject(HEADER);
  });

  it("is gzipped JSON, one entry a line, that an operator can read with zcat", async () => {
    const store = createMemoryStore();
    await write(store, entries(10), new Map([["Zid", '{"v":"1"}']]));
    const object = await store.get(PAGE_INPUTS_KEY);
    expect(object?.contentType).toBe("application/gzip");
    const text = gunzipSync(object?.body as Buffer).toString();
    const parsed = JSON.parse(text);
    expect(parsed).toMatchObject({
      version: 3,
      site: "site-version",
      ...HEADER,
      documents: { Zid: { v: "1" } },
    });
    expect(Object.keys(parsed.pages)).toHaveLength(13);
    expect(text.split("\n")).toHaveLength(1 + 13 + 1 + 1 + 1);
  });

  it("reads an empty site's file", async () => {
    const store = createMemoryStore();
    await write(store, new Map(), new Map());
    const records = await (await openPageInputs(store))?.read();
    expect(records?.pages.size).toBe(0);
    expect(records?.documents.size).toBe(0);
    expect(records?.ref).toBe(HEADER.ref);
  });

  it("deletes the plain file builds kept before it was gzipped", async () => {
    const store = createMemoryStore();
    const former = ".pressroom/page-inputs.json";
    const body = '{"version":2,"pages":{},"documents":{}}';
    await store.put(former, body, {
      contentType: "application/json",
      cacheControl: CACHE_CONTROL.metadata,
      contentHash: sha256(body),
    });
    await write(store, entries(1), new Map());
    expect(await store.head(former)).toBeUndefined();
    expect(await store.head(PAGE_INPUTS_KEY)).toBeDefined();
  });

  it("is none when missing, not gzip, of another version, or cut short", async () => {
    const store = createMemoryStore();
    expect(await openPageInputs(store)).toBeUndefined();

    const put = (bytes: Buffer) =>
      store.put(PAGE_INPUTS_KEY, bytes, {
        contentType: "application/gzip",
        cacheControl: CACHE_CONTROL.metadata,
        contentHash: sha256(bytes),
      });
    await put(Buffer.from('{"version":3,"pages":{'));
    expect(await openPageInputs(store)).toBeUndefined();
    await put(gzipSync('{"version":2,"pages":{\n"/":{}\n},"documents":{\n}}'));
    expect(await openPageInputs(store)).toBeUndefined();

    // Its first line whole, the rest lost: the header reads, the entries are none (every page renders).
    const whole = gunzipSync((await writeAndGet(entries(100))) as Buffer);
    await put(gzipSync(whole.subarray(0, Math.floor(whole.length / 2))));
    const cut = await openPageInputs(store);
    expect(cut?.header).toEqual(HEADER);
    const records = await cut?.read();
    expect(records?.pages.size).toBe(0);
    expect(records?.documents.size).toBe(0);
  });
});

async function writeAndGet(pages: Map<string, string>): Promise<Buffer | undefined> {
  const store = createMemoryStore();
  await write(store, pages, new Map());
  return (await store.get(PAGE_INPUTS_KEY))?.body;
}
