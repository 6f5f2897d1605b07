import type { SiteAssets } from "../assets.ts";
import type { SettingsDocument } from "../content/index.ts";
import type { RenderMode } from "../render-context.ts";

/** What every HTML route's view needs besides its own content. */
export interface ViewProps {
  settings: SettingsDocument;
  siteUrl: string;
  assets: SiteAssets;
  mode: RenderMode;
  /** The canonical path rendered. */
  path: string;
}
