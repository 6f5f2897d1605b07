import { resolve } from "node:path";
import { ConfigError } from "../errors.ts";
import { StorageKeyError } from "./storage-errors.ts";
import { assertSafeKey } from "./storage-keys.ts";

export type StorageTarget =
  | { kind: "memory" }
  | { kind: "file" /** absolute */; root: string }
  | { kind: "s3"; bucket: string /** "" or ending with "/" */; prefix: string };

const FIX =
  "Set STORAGE_URL to file://<folder> (e.g. file://./data/site), s3://<bucket>/<prefix> or memory:.";
// S3's bucket naming rules (3-63 characters; lowercase letters, digits, dots, hyphens).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Parses STORAGE_URL. `file://` is followed by a folder path taken as written (percent-escapes
 * decoded): `file:///srv/site` is absolute, `file://./data/site` and `file://data/site` are
 * relative to the working directory.
 */
export function parseStorageUrl(url: string, cwd = process.cwd()): StorageTarget {
  const refuse = (reason: string): never => {
    throw new ConfigError([`STORAGE_URL=${JSON.stringify(url)} is ${reason}. ${FIX}`]);
  };
  if (url === "memory:") return { kind: "memory" };
  if (url.startsWith("file://")) {
    let path = "";
    try {
      path = decodeURIComponent(url.slice("file://".length));
    } catch {
      refuse("not a valid file URL (bad percent-escape)");
    }
    if (path === "") refuse("missing the folder (file://<folder>)");
    if (path.includes("\0")) refuse("not a valid folder path");
    const root = resolve(cwd, path);
    if (root === resolve("/")) refuse("the filesystem root, which cannot be a site folder");
    return { kind: "file", root };
  }
  if (url.startsWith("s3://")) {
    const rest = url.slice("s3://".length);
    const slash = rest.indexOf("/");
    const bucket = slash === -1 ? rest : rest.slice(0, slash);
    const written = slash === -1 ? "" : rest.slice(slash + 1);
    const prefix = written.endsWith("/") ? written.slice(0, -1) : written;
    if (!BUCKET.test(bucket) || bucket.includes(".."))
      refuse(`naming an invalid S3 bucket ${JSON.stringify(bucket)}`);
    if (written !== "") {
      try {
        assertSafeKey(prefix);
      } catch (error) {
        if (!(error instanceof StorageKeyError)) throw error;
        refuse(`using an unsafe prefix (${error.reason})`);
      }
    }
    return { kind: "s3", bucket, prefix: prefix === "" ? "" : `${prefix}/` };
  }
  return refuse("not file://<folder>, s3://<bucket>/<prefix> or memory:");
}

/** How an S3 location is named in logs and errors: `s3://bucket` or `s3://bucket/prefix`. */
export function describeS3(location: { bucket: string; prefix: string }): string {
  return `s3://${location.bucket}${location.prefix ? `/${location.prefix.slice(0, -1)}` : ""}`;
}
