import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** What the content client needs to know of the models: each type and its field ids. */
export interface ContentSchema {
  types: Readonly<Record<string, readonly string[]>>;
}

interface CustomTypeFile {
  id: string;
  json: Record<string, Record<string, unknown>>;
}

/** Reads the Slice Machine custom types (`customtypes/<id>/index.json`) under `rootDir`. */
export function loadContentSchema(rootDir: string): ContentSchema {
  const dir = join(rootDir, "customtypes");
  const types: Record<string, string[]> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const model = JSON.parse(readFileSync(join(dir, entry.name, "index.json"), "utf8")) as CustomTypeFile;
    // Fields are grouped in tabs; the API addresses them without the tab.
    types[model.id] = Object.values(model.json).flatMap((tab) => Object.keys(tab));
  }
  return { types };
}
