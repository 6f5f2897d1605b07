/**
 * The folder driver on a real full disk (a tmpfs): an object with metadata (a redirect) is two
 * files, and a disk with room for the first and not the second must leave the key as it was, never
 * the redirect's body without its location (a page saying "moved", served 200, where a redirect or
 * nothing was). The error says ENOSPC and that trying again later can help. Needs `mount -t tmpfs`
 * (root): skipped with a visible note where it is refused.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REDIRECT_CACHE_CONTROL, REDIRECT_CONTENT_TYPE, redirectPage } from "#manifest/redirects.ts";
import { createSiteStore, StorageError, sha256 } from "#storage";

const base = process.env.TMPDIR ?? join(process.cwd(), ".tmp");
mkdirSync(base, { recursive: true });
const mountPoint = join(base, `fs-full-${process.pid}-${Date.now()}`);
const mounted = (() => {
  mkdirSync(mountPoint, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mountPoint], { stdio: "pipe" });
    return true;
  } catch (error) {
    rmSync(mountPoint, { recursive: true, force: true });
    console.warn(
      `SKIPPED fs-store-full-disk: cannot mount a tmpfs here (${(error as Error).message.split("\n")[0]})`,
    );
    return false;
  }
})();

afterAll(() => {
  if (!mounted) return;
  execFileSync("umount", [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const freeBytes = () => {
  const stats = statfsSync(mountPoint);
  return stats.bavail * stats.bsize;
};

describe.skipIf(!mounted)("the folder driver on a full disk", () => {
  it("a redirect that does not fit whole leaves its key as it was, and says ENOSPC", async () => {
    const store = createSiteStore({
      url: `file://${mountPoint}`,
      s3Endpoint: undefined,
      s3Region: "us-east-1",
    });
    const body = redirectPage("/spring-sale");
    const options = {
      contentType: REDIRECT_CONTENT_TYPE,
      cacheControl: REDIRECT_CACHE_CONTROL,
      contentHash: sha256(body),
      redirectLocation: "/spring-sale",
    };
    // The folders first, so that what is left is room for one small file: the body, not its metadata.
    await store.put("offers/index.html", body, options);
    await store.delete("offers/index.html");
    mkdirSync(join(mountPoint, "offers"), { recursive: true });
    mkdirSync(join(mountPoint, ".pressroom-meta", "offers"), { recursive: true });
    writeFileSync(join(mountPoint, ".pressroom-filler"), Buffer.alloc(freeBytes() - 4096));
    expect(freeBytes()).toBe(4096);

    const failure = await store.put("offers/index.html", body, options).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).code).toBe("ENOSPC");
    expect((failure as StorageError).retryable).toBe(true);
    expect(await store.head("offers/index.html")).toBeUndefined();
    expect(freeBytes(), "no temp file left behind").toBe(4096);

    rmSync(join(mountPoint, ".pressroom-filler"));
    await store.put("offers/index.html", body, options);
    expect((await store.get("offers/index.html"))?.redirectLocation).toBe("/spring-sale");
    await store.close();
  });
});
