import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { generateTypes, NON_EDITABLE_FILE_HEADER } from "prismic-ts-codegen";
import { loadModels } from "#local-prismic/models.ts";

export const TYPES_FILE = join("web", "prismicio-types.d.ts");

/** The content of web/prismicio-types.d.ts for the models on disk under rootDir. */
export function generateModelTypes(rootDir: string): string {
  const { customTypes, slices } = loadModels(rootDir);
  const types = generateTypes({
    customTypeModels: customTypes,
    sharedSliceModels: slices,
    typesProvider: "@prismicio/client",
    clientIntegration: { includeCreateClientInterface: true, includeContentNamespace: true },
    // The cache is keyed on model objects; a fresh process must give the same text, so keep it off.
    cache: false,
  });
  return `${NON_EDITABLE_FILE_HEADER}\n\n${types}`;
}

function main(): void {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const file = join(root, TYPES_FILE);
  writeFileSync(file, generateModelTypes(root));
  console.log(`wrote ${TYPES_FILE}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
