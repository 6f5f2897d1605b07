import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CustomTypeModel, SharedSliceModel } from "@prismicio/client";

export type Models = {
  customTypes: CustomTypeModel[];
  slices: SharedSliceModel[];
};

/** Where Slice Machine keeps the models, relative to the repository root (see slicemachine.config.json). */
export const CUSTOM_TYPES_DIR = "customtypes";
export const SLICE_LIBRARY_DIR = join("web", "slices");

/**
 * Reads the Slice Machine files from disk. Only files are read (no imports from web/), so that the content
 * service stays independent of the site. Entries are sorted by id: directory order differs between file
 * systems and the generated types must not.
 */
export function loadModels(rootDir: string): Models {
  const customTypes = readJsonFiles<CustomTypeModel>(join(rootDir, CUSTOM_TYPES_DIR), "index.json");
  const slices = readJsonFiles<SharedSliceModel>(join(rootDir, SLICE_LIBRARY_DIR), "model.json");
  for (const slice of slices) {
    if (slice.type !== "SharedSlice") {
      throw new Error(`Slice model "${slice.id}" has type "${slice.type}"; only SharedSlice is supported.`);
    }
  }
  return { customTypes: sortById(customTypes), slices: sortById(slices) };
}

function readJsonFiles<T>(dir: string, fileName: string): T[] {
  const out: T[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const file = join(dir, entry.name, fileName);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      // A slice folder may legitimately hold only a component while it is being written.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    try {
      out.push(JSON.parse(text) as T);
    } catch (error) {
      throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
    }
  }
  return out;
}

function sortById<T extends { id: string }>(items: T[]): T[] {
  return items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
