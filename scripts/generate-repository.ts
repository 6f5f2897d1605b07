/**
 * Writes a generated repository in the demo's layout, for load tests and the big-repository benchmarks:
 *   node --import tsx scripts/generate-repository.ts --pages 10000 --price-lists 20 --seed 1 --out data/big
 * → <out>/documents/<id>.json (one compact JSON per document) and <out>/images/ (the demo images).
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DEMO_DIR, DEMO_IMAGES_DIR } from "#local-prismic/demo.ts";
import { generateRepository } from "#local-prismic/generate.ts";

function main(): void {
  const { values } = parseArgs({
    options: {
      pages: { type: "string", default: "1000" },
      "price-lists": { type: "string", default: "10" },
      seed: { type: "string", default: "1" },
      out: { type: "string" },
    },
  });
  const number = (name: string, text: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, got "${text}"`);
    return n;
  };
  if (!values.out) throw new Error("--out <dir> is required (the documents go to <dir>/documents/)");
  const out = resolve(values.out);
  // The demo is hand-written content; a generated repository must never replace it.
  if (resolve(out) === resolve(DEMO_DIR)) throw new Error("--out must not be the demo folder");

  const docs = generateRepository({
    pages: number("pages", values.pages),
    priceLists: number("price-lists", values["price-lists"]),
    seed: number("seed", values.seed),
  });
  const documentsDir = join(out, "documents");
  // Start clean: files left from a bigger run would otherwise stay in the repository.
  rmSync(documentsDir, { recursive: true, force: true });
  mkdirSync(documentsDir, { recursive: true });
  for (const doc of docs) writeFileSync(join(documentsDir, `${doc.id}.json`), JSON.stringify(doc));
  cpSync(DEMO_IMAGES_DIR, join(out, "images"), { recursive: true });
  console.log(`wrote ${docs.length} documents to ${documentsDir}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 1;
  }
}
