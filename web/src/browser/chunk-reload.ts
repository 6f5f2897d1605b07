/**
 * A chunk that fails to load means either the network dropped (the page stays, since a reload
 * would show the browser's offline page, and the chunk is asked for again once online) or a deploy
 * replaced the files this page was built against (a reload fetches the new names). A HEAD request
 * for this page tells the two apart. Reloads happen at most once per 60 s, remembered in
 * sessionStorage and in the history entry's state (which survives when storage is blocked), so a
 * chunk that is truly gone cannot cause a reload loop. A chunk still missing after 120 s has failed
 * too, or a stalled request would leave its island dead.
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
