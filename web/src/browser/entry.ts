/**
 * The one script every page loads (a module, so it runs after parsing). It
 * stays small: everything heavy is a chunk loaded on demand.
 */
import { hydrateIslands } from "./islands.ts";
import { enhanceNavigation } from "./navigation.ts";
import { watchConnection } from "./offline-notice.ts";
import { startTagManager } from "./tag-manager.ts";

hydrateIslands();
enhanceNavigation();
startTagManager();
watchConnection();
