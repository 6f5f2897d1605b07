/**
 * A chunk that fails to load almost always means a deploy replaced the files
 * this page was built against (or the network dropped). Reloading fetches the
 * new page and its new chunk names; doing so at most once per 60 s, remembered
 * across reloads, makes a reload loop impossible when the chunk is truly gone.
 */
const KEY = "pressroom:chunk-reload";
export const CHUNK_RELOAD_INTERVAL_MS = 60_000;

export async function loadChunk<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    reloadOnce(error);
    throw error;
  }
}

function reloadOnce(error: unknown): void {
  let last = 0;
  try {
    last = Number(sessionStorage.getItem(KEY) ?? 0);
    if (Date.now() - last < CHUNK_RELOAD_INTERVAL_MS) {
      console.error("A script failed to load again; not reloading within 60 s.", error);
      return;
    }
    sessionStorage.setItem(KEY, String(Date.now()));
  } catch {
    // No storage (privacy settings): without a memory of the last reload, never reload.
    console.error("A script failed to load.", error);
    return;
  }
  location.reload();
}
