/**
 * The one script every page loads (a module, so it runs after parsing). It
 * stays small and React-free: everything heavy is a chunk loaded when an island
 * wakes (island-wake.ts). The consent mark comes first, so the cookie notice
 * (no React: a few hundred bytes here, cheaper than a chunk for a first visit)
 * knows whether it shows.
 */
import { watchCookieNotice } from "./cookie-notice.ts";
import { watchCookieSettings } from "./cookie-settings.ts";
import { hydrateIslands } from "./islands.ts";
import { enhanceNavigation } from "./navigation.ts";
import { watchConnection } from "./offline-notice.ts";
import { startTagManager } from "./tag-manager.ts";

startTagManager();
hydrateIslands();
watchCookieNotice();
watchCookieSettings();
enhanceNavigation();
watchConnection();
