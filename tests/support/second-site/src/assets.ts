import { createHash } from "node:crypto";
import type {
  AssetFile,
  BrowserManifest,
  BuiltAssets,
  JavaScriptMeter,
  PageJavaScript,
} from "#website/contract.ts";

/** Inline, not read from a file: the engine bundles the website for its render threads. */
const CSS = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}
header a{margin-right:1rem}.quote{margin:2rem 0;border-left:4px solid #888;padding-left:1rem}
footer{margin-top:3rem;color:#555}`;

const hashed = (name: string, extension: string, text: string, contentType: string): AssetFile => {
  const body = Buffer.from(text, "utf8");
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 10);
  return { key: `assets/${name}.${hash}.${extension}`, body, contentType };
};

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#246"/></svg>`;

/** A stylesheet and a favicon; no browser code at all (the manifest is empty). */
export async function buildAssets(): Promise<BuiltAssets> {
  const css = hashed("blog", "css", CSS, "text/css; charset=utf-8");
  const favicon = hashed("blog-icon", "svg", FAVICON, "image/svg+xml");
  const browser: BrowserManifest = { entry: "", entryFiles: [], islands: {}, react: [], gzipBytes: {} };
  return { files: [css, favicon], assets: { css: `/${css.key}`, favicon: `/${favicon.key}`, browser } };
}

/** The site ships no JavaScript; the meter still counts any inline `<script>` a page would carry. */
export function javascriptMeter(_manifest: BrowserManifest): JavaScriptMeter {
  let heaviest: PageJavaScript | undefined;
  return {
    add(route, html) {
      const text = typeof html === "string" ? html : "";
      const bytes = [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].reduce(
        (sum, match) => sum + Buffer.byteLength(match[1] ?? ""),
        0,
      );
      if (!heaviest || bytes > heaviest.bytes) heaviest = { route, bytes };
    },
    report() {
      const line = heaviest?.bytes
        ? `JavaScript: ${heaviest.bytes} bytes inline at most (${heaviest.route}); budget 0`
        : "JavaScript: none (plain HTML pages)";
      return {
        ...(heaviest ? { heaviest } : {}),
        overBudget: heaviest?.bytes ? [line] : [],
        lines: [line],
      };
    },
  };
}
