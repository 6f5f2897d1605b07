/**
 * A chunk that fails to load means one of two things. Either the network
 * dropped: then the page stays as it is (a reload would replace it with the
 * browser's offline page) and the chunk is asked for again once the
 * connection is back. Or a deploy replaced the files this page was built
 * against: reloading fetches the new page and its new chunk names; doing so
 * at most once per 60 s, remembered across reloads, makes a reload loop
 * impossible when the chunk is truly gone. The site answering a HEAD request
 * for this page tells the two apart. A chunk still not there after 120 s has
 * failed too (a stalled request would otherwise leave its island dead).
 *
 * The last reload is remembered in sessionStorage (the whole tab) and in the
 * history entry's state, which survives a reload when storage is blocked by
 * privacy settings: then it is at most one reload per page a minute.
 */
const KEY = "pressroom:chunk-reload";
export const CHUNK_RELOAD_INTERVAL_MS = 60_000;
export const CHUNK_TIMEOUT_MS = 120_000;
/** While the site cannot be reached though the browser says it is online (a captive portal): how often to look again. */
const RETRY_OFFLINE_MS = 15_000;

export async function loadChunk<T>(load: () => Promise<T>): Promise<T> {
  try {
    // The timer's rejection after the chunk arrived goes nowhere (the race is settled).
    return await Promise.race([
      load(),
      new Promise<never>((_, reject) => setTimeout(reject, CHUNK_TIMEOUT_MS, new Error("Chunk timed out"))),
    ]);
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
  const state = history.state ?? {};
  let last = +(state[KEY] ?? 0);
  try {
    last = Math.max(last, +(sessionStorage.getItem(KEY) ?? 0));
  } catch {}
  if (Date.now() - last < CHUNK_RELOAD_INTERVAL_MS) {
    console.error("A script failed to load again; not reloading within 60 s.", error);
    return;
  }
  try {
    sessionStorage.setItem(KEY, `${Date.now()}`);
  } catch {}
  // Kept by navigation.ts, which gives each entry its own key in the same state.
  history.replaceState({ ...state, [KEY]: Date.now() }, "");
  location.reload();
}
