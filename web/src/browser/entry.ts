/**
 * The one script every page loads (a module, so it runs after parsing). It
 * stays small and React-free: everything heavy is a chunk loaded when an island
 * wakes (island-wake.ts). The consent mark comes first, so the islands see
 * whether the cookie notice shows.
 */
import { watchCookieSettings } from "./cookie-settings.ts";
import { hydrateIslands } from "./islands.ts";
import { enhanceNavigation } from "./navigation.ts";
import { watchConnection } from "./offline-notice.ts";
import { startTagManager } from "./tag-manager.ts";

startTagManager();
hydrateIslands();
watchCookieSettings();
enhanceNavigation();
watchConnection();
