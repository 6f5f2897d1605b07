import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { PrismicDocument } from "./query/index.ts";

/** Reads `<dir>/documents/*.json` (the demo folder's layout, and what the generator writes), in file name order. */
export async function readDocumentFolder(dir: string): Promise<PrismicDocument[]> {
  const documentsDir = join(dir, "documents");
  let files: string[];
  try {
    files = (await readdir(documentsDir)).filter((f) => f.endsWith(".json")).sort();
  } catch (error) {
    throw new Error(`Cannot read the seed documents in ${documentsDir}: ${(error as Error).message}`);
  }
  if (files.length === 0) throw new Error(`${documentsDir} holds no *.json documents`);
  return Promise.all(
    files.map(async (file) => {
      try {
        return JSON.parse(await readFile(join(documentsDir, file), "utf8")) as PrismicDocument;
      } catch (error) {
        throw new Error(`${join(documentsDir, file)}: ${(error as Error).message}`);
      }
    }),
  );
}
