import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = new URL("../../", import.meta.url).pathname;
const MODEL_DIRS = ["customtypes", "web/slices", "services/local-prismic/demo/documents"];
/** The generator itself: a repository it made differently is made again. */
const GENERATOR = "services/local-prismic/src/generate.ts";
const STAMP = ".models-hash";

/**
 * A generated repository for the benchmarks, made once and kept under TMPDIR. It is made again
 * when the content models, the demo documents or the generator change: a repository generated from
 * older models is refused by the local content service (a field the models now require is missing),
 * and one from an older generator holds other content than the same size made now.
 */
export function ensureGeneratedRepository(repo: string, pages: number, priceLists: number): void {
  const hash = modelsHash();
  const stamp = join(repo, STAMP);
  if (existsSync(join(repo, "documents")) && existsSync(stamp) && readFileSync(stamp, "utf8") === hash)
    return;
  rmSync(repo, { recursive: true, force: true });
  console.log(`generating a repository of ${pages} pages…`);
  execFileSync(
    process.execPath,
    [
      "--import",
      "tsx",
      join(ROOT, "scripts/generate-repository.ts"),
      "--pages",
      String(pages),
      "--price-lists",
      String(priceLists),
      "--seed",
      "1",
      "--out",
      repo,
    ],
    { stdio: "inherit" },
  );
  writeFileSync(stamp, hash);
}

function modelsHash(): string {
  const hash = createHash("sha256");
  const visit = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) visit(path);
      else if (name.endsWith(".json")) hash.update(path.slice(ROOT.length)).update(readFileSync(path));
    }
  };
  for (const dir of MODEL_DIRS) visit(join(ROOT, dir));
  hash.update(GENERATOR).update(readFileSync(join(ROOT, GENERATOR)));
  return hash.digest("hex");
}
