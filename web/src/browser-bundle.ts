import { gzipSync } from "node:zlib";
import { type BuildOptions, build, type Metafile } from "esbuild";
import type { AssetFile, BrowserManifest } from "#website/contract.ts";

/** Where the browser code is served from; chunk URLs inside the entry are relative to it. */
const PUBLIC_DIR = "assets/js";
const ENTRY = new URL("./browser/entry.ts", import.meta.url).pathname;
/** esbuild's working folder; output paths (never written) are relative to it. */
const ROOT = new URL("../../", import.meta.url).pathname;
const JS = "text/javascript; charset=utf-8";

/** esbuild options every browser bundle shares (the site's, the preview's, the simulator's). */
export const BROWSER_BUILD = {
  minify: true,
  platform: "browser",
  target: ["es2022"],
  jsx: "automatic",
  define: { "process.env.NODE_ENV": '"production"' },
  legalComments: "none",
  logLevel: "silent",
  // Packages by the path they are imported through (`node_modules/react/…`), not where a linked
  // node_modules really lies: chunk names hash module paths, and the same sources must give the
  // same asset names (the site's version) on every machine and checkout.
  preserveSymlinks: true,
} as const satisfies BuildOptions;

export type { BrowserManifest } from "#website/contract.ts";

/**
 * The browser bundle: one small entry plus one chunk per island
 * (`web/src/browser/islands/<name>.client.tsx`), split by esbuild so that
 * React and Swiper load only on pages whose islands need them. File names
 * carry esbuild's content hash, so the same sources always give the same
 * bytes and names and every file can be cached forever.
 */
export async function buildBrowserBundle(): Promise<{ files: AssetFile[]; manifest: BrowserManifest }> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    splitting: true,
    format: "esm",
    write: false,
    metafile: true,
    ...BROWSER_BUILD,
    outdir: `${ROOT}${PUBLIC_DIR}`,
    entryNames: "[name].[hash]",
    chunkNames: "chunk.[hash]",
    absWorkingDir: ROOT,
  });
  const files: AssetFile[] = result.outputFiles.map((output) => ({
    key: output.path.slice(ROOT.length),
    body: Buffer.from(output.contents),
    contentType: JS,
  }));
  const gzipBytes = Object.fromEntries(
    files.map((f) => [`/${f.key}`, gzipSync(f.body, { level: 9 }).length]),
  );
  return { files, manifest: { ...readManifest(result.metafile), gzipBytes } };
}

function readManifest(metafile: Metafile): Omit<BrowserManifest, "gzipBytes"> {
  const outputs = Object.entries(metafile.outputs).map(([path, output]) => ({
    path: `/${path}`,
    ...output,
  }));
  const byPath = new Map(outputs.map((o) => [o.path, o]));
  const staticClosure = (start: string): string[] => {
    const seen = new Set<string>();
    const visit = (path: string) => {
      if (seen.has(path)) return;
      seen.add(path);
      for (const imported of byPath.get(path)?.imports ?? [])
        if (imported.kind === "import-statement") visit(`/${imported.path}`);
    };
    visit(start);
    return [...seen];
  };
  const entry = outputs.find((o) => o.entryPoint && ENTRY.endsWith(o.entryPoint));
  if (!entry) throw new Error("esbuild produced no entry for the browser bundle");
  const entryFiles = staticClosure(entry.path);
  // React is imported dynamically by the island loader, once, for whichever island comes first.
  const react = [
    ...new Set(
      outputs
        .filter((o) => o.entryPoint && /node_modules\/react(-dom)?\//.test(o.entryPoint))
        .flatMap((o) => staticClosure(o.path)),
    ),
  ].filter((file) => !entryFiles.includes(file));
  const islands: Record<string, string[]> = {};
  for (const output of outputs) {
    const name = output.entryPoint && islandName(output.entryPoint);
    if (!name) continue;
    const needed = new Set([...staticClosure(output.path), ...react]);
    islands[name] = [...needed].filter((file) => !entryFiles.includes(file)).sort();
  }
  return { entry: entry.path, entryFiles, islands, react: react.sort() };
}

/** `web/src/browser/islands/carousel.client.tsx` → `carousel`. */
function islandName(entryPoint: string): string | undefined {
  return /(?:^|\/)web\/src\/browser\/islands\/([a-z0-9-]+)\.client\.tsx$/.exec(entryPoint)?.[1];
}

/** The gzip bytes of JavaScript a page with these islands loads: the entry, plus each island's files once. */
export function javascriptBytes(manifest: BrowserManifest, islands: Iterable<string>): number {
  const files = new Set(manifest.entryFiles);
  for (const name of islands) for (const file of manifest.islands[name] ?? []) files.add(file);
  let total = 0;
  for (const file of files) total += manifest.gzipBytes[file] ?? 0;
  return total;
}
