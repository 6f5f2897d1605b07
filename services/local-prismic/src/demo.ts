import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PrismicDocument } from "@prismicio/client";

/** The bundled demo repository: `documents/<id>.json` and `images/<name>.<ext>`. */
export const DEMO_DIR = fileURLToPath(new URL("../demo/", import.meta.url));
export const DEMO_IMAGES_DIR = join(DEMO_DIR, "images");

/**
 * Stands for the server's asset base URL inside stored documents. Documents cannot hold absolute urls:
 * the content service listens on whatever host and port it is given.
 */
export const ASSET_BASE_PLACEHOLDER = "{{ASSET_BASE}}";

/**
 * Reads every `documents/*.json` under `dir` (the demo by default; a generated repository has the same
 * layout), sorted by id so that every process sees the same order. Urls keep the placeholder.
 */
export function loadDemoDocuments(dir: string = DEMO_DIR): PrismicDocument[] {
  return [...readDocuments(dir)];
}

/** loadDemoDocuments one at a time: a seed of 100,000 documents is stored without holding them all. */
export function* readDocuments(dir: string = DEMO_DIR): Generator<PrismicDocument> {
  const documentsDir = join(dir, "documents");
  const files = readdirSync(documentsDir)
    .filter((name) => name.endsWith(".json"))
    .sort();
  for (const name of files) {
    const file = join(documentsDir, name);
    let doc: PrismicDocument;
    try {
      doc = JSON.parse(readFileSync(file, "utf8")) as PrismicDocument;
    } catch (error) {
      throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
    }
    yield doc;
  }
}

/** A copy of `value` with every `{{ASSET_BASE}}` in every string replaced by `base` (no trailing slash). */
export function expandAssetBase<T>(value: T, base: string): T {
  const trimmed = base.replace(/\/+$/, "");
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") return node.split(ASSET_BASE_PLACEHOLDER).join(trimmed);
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child)]));
    }
    return node;
  };
  return walk(value) as T;
}
