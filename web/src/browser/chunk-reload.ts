/**
 * A chunk that fails to load means one of two things. Either the network
 * dropped: then the page stays as it is (a reload would replace it with the
 * browser's offline page) and the chunk is asked for again once the
 * connection is back. Or a deploy replaced the files this page was built
 * against: reloading fetches the new page and its new chunk names; doing so
 * at most once per 60 s, remembered across reloads, makes a reload loop
 * impossible when the chunk is truly gone. The site answering a HEAD request
 * for this page tells the two apart.
 */
const KEY = "pressroom:chunk-reload";
export const CHUNK_RELOAD_INTERVAL_MS = 60_000;
/** While the site cannot be reached though the browser says it is online (a captive portal): how often to look again. */
const RETRY_OFFLINE_MS = 15_000;

export async function loadChunk<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!navigator.onLine || !(await siteAnswers())) {
      await connectionBack();
      // A browser may remember the failed import and refuse it again at once: then the site
      // answers, and the reload below brings the page back with its chunks.
      return loadChunk(load);
    }
    reloadOnce(error);
    throw error;
  }
}

async function siteAnswers(): Promise<boolean> {
  try {
    await fetch(location.href, { method: "HEAD", cache: "no-store" });
    return true;
  } catch {
    return false;
  }
}

function connectionBack(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      removeEventListener("online", done);
      clearTimeout(timer);
      resolve();
    };
    addEventListener("online", done);
    const timer = setTimeout(done, RETRY_OFFLINE_MS);
  });
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
