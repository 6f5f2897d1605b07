import { isAbsolute, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ConfigError } from "../errors.ts";
import type { Website } from "./contract.ts";

export type * from "./contract.ts";

/** The demo website, published when `PRESSROOM_WEBSITE` names no other. */
const DEFAULT_WEBSITE = fileURLToPath(new URL("../../../../web/src/website.ts", import.meta.url));

/**
 * The file of the website this process publishes: `PRESSROOM_WEBSITE` (a path, relative to the
 * working folder) or the demo's `web/src/website.ts`. The render threads' bundle is made from it
 * too (worker/src/build/render-thread-bundle.ts), so every thread renders the same website.
 */
export function websiteModule(env: NodeJS.ProcessEnv = process.env): string {
  const chosen = env.PRESSROOM_WEBSITE?.trim();
  // Relative to the working folder, as an operator types it; the default is found from here.
  if (!chosen) return DEFAULT_WEBSITE;
  return isAbsolute(chosen) ? chosen : resolve(process.cwd(), chosen);
}

async function load(file: string): Promise<Website> {
  let loaded: { website?: Website };
  try {
    loaded = (await import(pathToFileURL(file).href)) as { website?: Website };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ConfigError([`PRESSROOM_WEBSITE: cannot load the website module ${file}: ${why}`]);
  }
  const website = loaded.website;
  if (!website || typeof website.render !== "function" || !website.routes)
    throw new ConfigError([
      `PRESSROOM_WEBSITE: ${file} exports no \`website\` (the contract in services/shared/src/website/contract.ts)`,
    ]);
  return website;
}

/**
 * The website this process publishes, loaded once when the engine's first module that needs it is
 * imported. Engine code imports it from `#website` and nothing else of the website's code.
 */
export const website: Website = await load(websiteModule());
