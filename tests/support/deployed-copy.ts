import { existsSync, realpathSync } from "node:fs";
import { cp, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { tempDir } from "./temp-dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
/** What `pressroom` runs from: the code a deploy ships (tests, docs and scripts stay behind). */
const SHIPPED = [
  "bin",
  "services",
  "web",
  "worker",
  "customtypes",
  "package.json",
  "tsconfig.json",
  "slicemachine.config.json",
];

export interface SourceEdit {
  /** A file of the checkout, relative to its root (`web/src/components/price-table.tsx`). */
  file: string;
  from: string;
  to: string;
}

export interface DeployedCopy {
  /** The copy's folder, for `startPressroom(…, { root })`. */
  root: string;
  remove(): Promise<void>;
}

/**
 * This checkout's shipped code copied to a folder of its own with `edits` applied: the site as a
 * deploy of changed code would run it, through the same `pressroom` command, render-thread bundle
 * and loader (node_modules is this checkout's, linked, as an image installs the same lockfile).
 * Each edit's `from` must occur once in the file, so a test cannot silently edit nothing. `files`
 * (path in the checkout → contents) are added after the edits; each must be new, so a test cannot
 * silently replace a file of the checkout.
 */
export async function deployedCopy(
  name: string,
  edits: readonly SourceEdit[],
  files: Readonly<Record<string, string>> = {},
): Promise<DeployedCopy> {
  const folder = await tempDir(`deploy-${name}`);
  for (const entry of SHIPPED) await cp(join(ROOT, entry), join(folder.path, entry), { recursive: true });
  await symlink(realpathSync(join(ROOT, "node_modules")), join(folder.path, "node_modules"), "dir");
  for (const edit of edits) {
    const path = join(folder.path, edit.file);
    const text = await readFile(path, "utf8");
    if (text.split(edit.from).length !== 2)
      throw new Error(
        `${edit.file}: expected "${edit.from}" exactly once; the source changed, update the test`,
      );
    await writeFile(
      path,
      text.replace(edit.from, () => edit.to),
    );
  }
  for (const [file, contents] of Object.entries(files)) {
    const path = join(folder.path, file);
    if (existsSync(path))
      throw new Error(`${file}: the checkout has it already; edit it instead, or update the test`);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, contents);
  }
  return { root: folder.path, remove: folder.remove };
}
