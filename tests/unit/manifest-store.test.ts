/**
 * The manifest in route shards: a route's shard is a function of the route alone (and the count);
 * a publish writes only the shards of the routes it changed, then the root, and deletes the shards
 * it replaced; a reader that loses a shard to a later publish reads the root again.
 */
import { describe, expect, it } from "vitest";
import {
  type BuildManifest,
  MANIFEST_KEY,
  MANIFEST_SHARDS_PREFIX,
  type ManifestRoute,
} from "#manifest/manifest.ts";
import {
  readManifest,
  readManifestRoot,
  shardCountFor,
  shardKey,
  shardOf,
  updateManifest,
  writeManifest,
} from "#manifest/manifest-store.ts";
import { createSiteStore, type SiteStore, sha256 } from "#storage";

/** A memory store recording the keys put and deleted; `beforeGet` runs before each get. */
function recordingStore(beforeGet?: (key: string) => Promise<void>) {
  const memory = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
  const puts: string[] = [];
  const deletes: string[] = [];
  const store: SiteStore = {
    ...memory,
    put: async (key, body, options) => {
      puts.push(key);
      await memory.put(key, body, options);
    },
    get: async (key) => {
      await beforeGet?.(key);
      return memory.get(key);
    },
    delete: async (key) => {
      deletes.push(key);
      await memory.delete(key);
    },
    list: (prefix) => memory.list(prefix),
  };
  const reset = () => {
    puts.length = 0;
    deletes.length = 0;
  };
  return { store, puts, deletes, reset };
}

const route = (n: number, hash = "a"): ManifestRoute => ({ key: `page-${n}/index.html`, hash, status: 200 });
function manifestOf(count: number): BuildManifest {
  const routes: Record<string, ManifestRoute> = {};
  for (let n = 0; n < count; n++) routes[`/page-${n}`] = route(n);
  return {
    version: 2,
    ref: "R1",
    builtAt: "2026-01-01T00:00:00.000Z",
    assets: { "assets/a.css": "h" },
    routes,
  };
}
async function shardKeys(store: SiteStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.keys(MANIFEST_SHARDS_PREFIX)) keys.push(key);
  return keys;
}

describe("route shards", () => {
  it("puts a route in the same shard whatever else the site holds, and sizes the count by the routes", () => {
    expect(shardOf("/about", 1)).toBe("0");
    expect(shardOf("/about", 16)).toBe("4");
    expect(shardOf("/about", 256)).toBe("c4");
    const index = Number.parseInt(sha256("/about").slice(0, 8), 16);
    expect(Number.parseInt(shardOf("/about", 256), 16)).toBe(index % 256);
    expect([1, 512, 513, 1_024, 1_025, 100_000].map(shardCountFor)).toEqual([1, 1, 2, 2, 4, 256]);
  });

  it("reads back what a build wrote: the root and every shard it names", async () => {
    const { store, puts } = recordingStore();
    const manifest = manifestOf(2_000);
    await writeManifest(store, manifest);
    const root = await readManifestRoot(store);
    expect(root?.shardCount).toBe(4);
    expect(Object.keys(root?.shards ?? {}).sort()).toEqual(["0", "1", "2", "3"]);
    expect(puts.at(-1)).toBe(MANIFEST_KEY); // the root last: it commits the shards
    expect((await readManifest(store))?.routes).toEqual(manifest.routes);
    expect((await store.get(MANIFEST_KEY))?.body.length).toBeLessThan(1_000);
  });

  it("writes only the shard of a changed route, then the root, and deletes the shard it replaced", async () => {
    const { store, puts, deletes, reset } = recordingStore();
    await writeManifest(store, manifestOf(2_000));
    const before = await readManifestRoot(store);
    reset();
    const name = shardOf("/page-7", 4);
    await updateManifest(store, before, {
      ref: "R2",
      written: new Map([["/page-7", route(7, "b")]]),
      deleted: [],
    });
    const after = await readManifestRoot(store);
    expect(puts).toEqual([shardKey(name, after?.shards[name] as string), MANIFEST_KEY]);
    expect(deletes).toEqual([shardKey(name, before?.shards[name] as string)]);
    expect(await shardKeys(store)).toHaveLength(4);
    expect(after?.ref).toBe("R2");
    expect((await readManifest(store))?.routes["/page-7"]?.hash).toBe("b");
  });

  it("drops a deleted route from its shard, and a shard left empty from the root", async () => {
    const { store } = recordingStore();
    await writeManifest(store, manifestOf(3));
    const before = await readManifestRoot(store);
    await updateManifest(store, before, { ref: "R2", written: new Map(), deleted: ["/page-0", "/page-1"] });
    expect(Object.keys((await readManifest(store))?.routes ?? {})).toEqual(["/page-2"]);
    await updateManifest(store, await readManifestRoot(store), {
      ref: "R3",
      written: new Map(),
      deleted: ["/page-2"],
    });
    expect((await readManifestRoot(store))?.shards).toEqual({});
    expect(await shardKeys(store)).toEqual([]);
  });

  it("rewrites no shard a build left as it was, and deletes those it replaced", async () => {
    const { store, puts, deletes, reset } = recordingStore();
    await writeManifest(store, manifestOf(2_000));
    const previous = await readManifest(store);
    reset();
    await writeManifest(store, manifestOf(2_000), { ...(previous ? { previous } : {}) });
    expect(puts).toEqual([MANIFEST_KEY]);
    expect(deletes).toEqual([]);
    // Twice the routes: eight shards, the four of before gone.
    await writeManifest(store, manifestOf(4_000), { ...(previous ? { previous } : {}) });
    expect(await shardKeys(store)).toHaveLength(8);
    expect((await readManifest(store))?.routes).toEqual(manifestOf(4_000).routes);
  });

  it("reads the root again when a publish deleted a shard under the reader", async () => {
    let interleave: (() => Promise<void>) | undefined;
    const { store } = recordingStore(async (key) => {
      if (!key.startsWith(MANIFEST_SHARDS_PREFIX) || !interleave) return;
      const publish = interleave;
      interleave = undefined;
      await publish(); // between the reader's root and its shards
    });
    await writeManifest(store, manifestOf(2_000));
    const root = await readManifestRoot(store);
    interleave = async () => {
      for (
        let n = 0;
        n < 40;
        n++ // a route in every shard
      )
        await updateManifest(store, await readManifestRoot(store), {
          ref: `R${n}`,
          written: new Map([[`/page-${n}`, route(n, "c")]]),
          deleted: [],
        });
    };
    const read = await readManifest(store);
    expect(read?.ref).not.toBe(root?.ref);
    expect(read?.routes["/page-0"]?.hash).toBe("c");
  });

  it("answers no manifest, and a publish throws, when a shard stays missing", async () => {
    const { store } = recordingStore();
    await writeManifest(store, manifestOf(10));
    const root = await readManifestRoot(store);
    await store.delete(shardKey("0", root?.shards["0"] as string));
    expect(await readManifest(store)).toBeUndefined();
    await expect(
      updateManifest(store, root, { ref: "R2", written: new Map([["/page-1", route(1, "d")]]), deleted: [] }),
    ).rejects.toThrow(/missing/);
  });

  it("reads a manifest of version 1 as one shard, and writes version 2 at the next publish", async () => {
    const { store } = recordingStore();
    const v1 = { ...manifestOf(5), version: 1 };
    const body = JSON.stringify(v1);
    await store.put(MANIFEST_KEY, body, {
      contentType: "application/json",
      cacheControl: "no-store",
      contentHash: sha256(body),
    });
    expect((await readManifest(store))?.routes).toEqual(v1.routes);
    await updateManifest(store, await readManifestRoot(store), {
      ref: "R2",
      written: new Map([["/page-9", route(9)]]),
      deleted: ["/page-0"],
      edit: (fields) => {
        fields.redirects = { "/page-0": "/page-9" };
      },
    });
    const root = JSON.parse((await store.get(MANIFEST_KEY))?.body.toString() ?? "{}");
    expect(root.version).toBe(2);
    expect(root.routes).toBeUndefined();
    expect(root.redirects).toEqual({ "/page-0": "/page-9" });
    expect(Object.keys((await readManifest(store))?.routes ?? {}).sort()).toEqual([
      "/page-1",
      "/page-2",
      "/page-3",
      "/page-4",
      "/page-9",
    ]);
  });
});
