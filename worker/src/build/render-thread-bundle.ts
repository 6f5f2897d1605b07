import { createHash } from "node:crypto";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { websiteModule } from "#website";

/** Inside node_modules, so that the bundle's package imports resolve as the sources' do. */
const CACHE_DIR = fileURLToPath(new URL("../../../node_modules/.cache/pressroom/", import.meta.url));
const ENTRY = fileURLToPath(new URL("./render-thread.ts", import.meta.url));
/** The checkout's root: the bundle's module paths are relative to it, whatever the process's folder. */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The source modules in the bundle: path (from the checkout's root) → sha256 of its text, and what each imports. */
export interface BundleModules {
  hashes: Record<string, string>;
  imports: Record<string, string[]>;
}

let bundled: Promise<{ url: URL; modules: BundleModules }> | undefined;

/**
 * `#website` in the thread's code is the website this process publishes, bundled: the loader
 * (services/shared/src/website/index.ts) imports it at run time by a path esbuild cannot follow, and
 * a thread could not load its TypeScript anyway. So the bundle, and the hash it is named by, hold the
 * website's code (`PRESSROOM_WEBSITE`). The website's module runs from the bundle's file there: the
 * paths it derives from its own location (`projectDir`, the editor's files) are not for a thread.
 */
const bundleTheWebsite: Plugin = {
  name: "website",
  setup(build) {
    build.onResolve({ filter: /^#website$/ }, () => ({ path: websiteModule() }));
  },
};

/**
 * The render thread as one plain JavaScript file (packages left as imports).
 * Threads do not share the main thread's module loader; loading tsx in each
 * one would cost every thread about 40 MB and a second of compiling at start,
 * where bundling costs ~200 ms once per process. The file is named by its
 * content hash, so processes building at once never see each other's half-
 * written files, and an edited source always gets a new bundle.
 */
export async function renderThreadBundle(): Promise<URL> {
  return (await bundle()).url;
}

/** The modules of this process's render-thread bundle (a deploy compares them: diff-build.ts). */
export async function renderThreadModules(): Promise<BundleModules> {
  return (await bundle()).modules;
}

function bundle() {
  bundled ??= (async () => {
    const result = await build({
      entryPoints: [ENTRY],
      absWorkingDir: ROOT,
      metafile: true,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      packages: "external",
      jsx: "automatic",
      write: false,
      logLevel: "silent",
      plugins: [bundleTheWebsite],
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
    const modules: BundleModules = { hashes: {}, imports: {} };
    for (const [path, input] of Object.entries(result.metafile.inputs)) {
      const text = await readFile(`${ROOT}${path}`).catch(() => undefined);
      // Not a file (esbuild's own namespaces): unknown, so never equal to another bundle's.
      modules.hashes[path] = text ? createHash("sha256").update(text).digest("hex").slice(0, 16) : "?";
      modules.imports[path] = input.imports.flatMap((imported) => (imported.external ? [] : [imported.path]));
    }
    return { url: pathToFileURL(file), modules };
  })();
  return bundled;
}
