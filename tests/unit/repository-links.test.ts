import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * A clone holds the whole project: no document, comment or test may send its reader to a file the
 * clone does not have. `npm run links` (remark-validate-links) checks that every relative link and
 * anchor resolves, but a link that climbs out of the repository resolves too on a machine that
 * happens to have the file; this test refuses those, and the names of reference material kept
 * beside the repository, wherever they appear.
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
  .split("\0")
  .filter((path) => path !== "" && !/\.(png|jpe?g|webp|avif|gif|ico|woff2?)$/.test(path));

/** Relative link targets of a Markdown file: `[text](target)` and `[label]: target`. */
function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of markdown.matchAll(
    /\]\(\s*<?([^)\s>]+)>?[^)]*\)|^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm,
  )) {
    const target = match[1] ?? match[2];
    if (target && !/^[a-z][a-z0-9+.-]*:|^#|^\/\//i.test(target)) targets.push(target.split("#")[0] as string);
  }
  return targets;
}

describe("the repository is self-contained", () => {
  it("no Markdown link leaves the repository", () => {
    const escaping: string[] = [];
    for (const file of tracked.filter((path) => path.endsWith(".md"))) {
      for (const target of linkTargets(readFileSync(join(ROOT, file), "utf8"))) {
        const to = relative(ROOT, resolve(ROOT, dirname(file), decodeURIComponent(target)));
        if (to.startsWith(`..${sep}`) || to === "..") escaping.push(`${file}: ${target}`);
      }
    }
    expect(escaping).toEqual([]);
  });

  it("nothing names the reference material kept outside the repository", () => {
    const outside = /\.\.\/shared\/|shared\/reference\/|(?<![\w/.-])ARCHITECTURE\.md/;
    const naming = tracked.filter(
      (file) =>
        file !== "tests/unit/repository-links.test.ts" &&
        outside.test(readFileSync(join(ROOT, file), "utf8")),
    );
    expect(naming).toEqual([]);
  });
});
