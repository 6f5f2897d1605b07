import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { build, type Plugin } from "esbuild";
import { website } from "#website";
import type { AssetFile, SiteAssets } from "#website/contract.ts";
import { PREVIEW_CSS } from "./preview-css.ts";

/** Everything the preview server serves from memory under `/assets/`, built once at start. */
export interface PreviewAssets {
  /** The site's own stylesheet and favicon (the same bytes the published site links). */
  site: SiteAssets;
  /** Public paths, e.g. `/assets/preview.3f2a9c01d4.js`. */
  previewScript: string;
  previewCss: string;
  simulatorScript: string;
  /** Public path → file. */
  files: Map<string, AssetFile>;
}

const HASH_LENGTH = 10;

/**
 * The kit accepts messages only from https Prismic origins unless it was
 * bundled for development. Slice Machine runs on http://localhost, and the
 * simulator page may only be framed by those parents anyway (CSP
 * frame-ancestors), so local origins are let through while React and
 * everything else stay production builds.
 */
const LOCAL_ORIGIN_CHECK = 'process.env.NODE_ENV !== "development"';
const localOriginsPlugin: Plugin = {
  name: "simulator-local-origins",
  setup(pluginBuild) {
    pluginBuild.onLoad(
      { filter: /@prismicio[\\/]simulator[\\/]dist[\\/]channel[\\/]ChannelReceiver\.js$/ },
      async (args) => {
        const source = await readFile(args.path, "utf8");
        if (!source.includes(LOCAL_ORIGIN_CHECK))
          throw new Error(`@prismicio/simulator changed: "${LOCAL_ORIGIN_CHECK}" not found in ${args.path}`);
        const allowLocal =
          "!(/^https?:\\/\\/(localhost|127\\.0\\.0\\.1|\\[::1\\])(:\\d+)?$/.test(event.origin) || event.origin === location.origin)";
        return { contents: source.replace(LOCAL_ORIGIN_CHECK, allowLocal), loader: "js" };
      },
    );
  },
};

async function bundle(entryPoint: string, plugins: Plugin[] = []): Promise<string> {
  const result = await build({
    entryPoints: [entryPoint],
    bundle: true,
    write: false,
    ...website.assets.editor.buildOptions,
    format: "iife",
    plugins,
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error(`esbuild produced nothing for ${entryPoint}`);
  return output.text;
}

function hashed(name: string, extension: string, text: string, contentType: string): AssetFile {
  const body = Buffer.from(text, "utf8");
  const hash = createHash("sha256").update(body).digest("hex").slice(0, HASH_LENGTH);
  return { key: `assets/${name}.${hash}.${extension}`, body, contentType };
}

/** Bundles the browser code with esbuild into memory: no build step, and nothing written to disk. */
export async function buildPreviewAssets(): Promise<PreviewAssets> {
  const JS = "text/javascript; charset=utf-8";
  const { editor } = website.assets;
  const [siteBuild, previewJs, simulatorJs] = await Promise.all([
    website.assets.build(),
    bundle(editor.preview),
    bundle(editor.simulator, [localOriginsPlugin]),
  ]);
  const preview = hashed("preview", "js", previewJs, JS);
  const simulator = hashed("slice-simulator", "js", simulatorJs, JS);
  const css = hashed("preview", "css", PREVIEW_CSS, "text/css; charset=utf-8");
  const all = [...siteBuild.files, preview, simulator, css];
  return {
    site: siteBuild.assets,
    previewScript: `/${preview.key}`,
    previewCss: `/${css.key}`,
    simulatorScript: `/${simulator.key}`,
    files: new Map(all.map((file) => [`/${file.key}`, file])),
  };
}
