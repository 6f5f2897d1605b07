import { createHash } from "node:crypto";
import { mkdir, rename, stat, writeFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

/** Inside node_modules, so that the bundle's package imports resolve as the sources' do. */
const CACHE_DIR = fileURLToPath(new URL("../../../node_modules/.cache/pressroom/", import.meta.url));
const ENTRY = fileURLToPath(new URL("./render-thread.ts", import.meta.url));

let bundled: Promise<URL> | undefined;

/**
 * The render thread as one plain JavaScript file (packages left as imports).
 * Threads do not share the main thread's module loader; loading tsx in each
 * one would cost every thread about 40 MB and a second of compiling at start,
 * where bundling costs ~200 ms once per process. The file is named by its
 * content hash, so processes building at once never see each other's half-
 * written files, and an edited source always gets a new bundle.
 */
export function renderThreadBundle(): Promise<URL> {
  bundled ??= (async () => {
    const result = await build({
      entryPoints: [ENTRY],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      packages: "external",
      jsx: "automatic",
      write: false,
      logLevel: "silent",
    });
    const code = result.outputFiles[0]?.contents;
    if (!code) throw new Error(`bundling ${ENTRY} produced no output`);
    const file = `${CACHE_DIR}render-thread.${createHash("sha256").update(code).digest("hex").slice(0, 12)}.mjs`;
    const exists = await stat(file).then(
      () => true,
      () => false,
    );
    if (!exists) {
      await mkdir(CACHE_DIR, { recursive: true });
      const temp = `${file}.${process.pid}.tmp`;
      await writeFile(temp, code);
      await rename(temp, file);
    }
    return pathToFileURL(file);
  })();
  return bundled;
}
