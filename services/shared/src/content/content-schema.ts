import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** What the content client needs to know of the models: each type and its field ids. */
export interface ContentSchema {
  types: Readonly<Record<string, readonly string[]>>;
  /**
   * Whether any model (custom type or shared slice) has Integration Fields. Only those read the
   * repository's `integrationFieldsRef`, which @prismicio/client otherwise fetches the API root for
   * before every query (content-client.ts). Absent: assume they do.
   */
  integrationFields?: boolean;
}

interface CustomTypeFile {
  id: string;
  json: Record<string, Record<string, unknown>>;
}

/** Reads the Slice Machine custom types (`customtypes/<id>/index.json`) under `rootDir`. */
export function loadContentSchema(rootDir: string): ContentSchema {
  const dir = join(rootDir, "customtypes");
  const types: Record<string, string[]> = {};
  let integrationFields = false;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const text = readFileSync(join(dir, entry.name, "index.json"), "utf8");
    integrationFields ||= INTEGRATION_FIELDS.test(text);
    const model = JSON.parse(text) as CustomTypeFile;
    // Fields are grouped in tabs; the API addresses them without the tab.
    types[model.id] = Object.values(model.json).flatMap((tab) => Object.keys(tab));
  }
  for (const library of sliceLibraries(rootDir)) {
    for (const slice of readdirSync(library, { withFileTypes: true })) {
      if (!slice.isDirectory()) continue;
      try {
        integrationFields ||= INTEGRATION_FIELDS.test(
          readFileSync(join(library, slice.name, "model.json"), "utf8"),
        );
      } catch {
        // a folder without a model (a helper): nothing to read
      }
    }
  }
  return { types, integrationFields };
}

const INTEGRATION_FIELDS = /"type"\s*:\s*"IntegrationFields"/;

/** The slice libraries slicemachine.config.json names (none without the file). */
function sliceLibraries(rootDir: string): string[] {
  try {
    const config = JSON.parse(readFileSync(join(rootDir, "slicemachine.config.json"), "utf8")) as {
      libraries?: unknown;
    };
    return Array.isArray(config.libraries)
      ? config.libraries.filter((l): l is string => typeof l === "string").map((l) => join(rootDir, l))
      : [];
  } catch {
    return [];
  }
}
