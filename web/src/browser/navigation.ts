/**
 * Enhanced navigation: a same-origin link click fetches the next page's HTML and swaps the header,
 * `<main>` and footer in place, so the scripts, React and the islands' chunks stay loaded. An error
 * status with the site's HTML page (404, 500, 503) shows that page. Anything unexpected (not HTML, a
 * network error, a redirect to another origin, a new deploy, no page within 5 s) falls back to a
 * normal page load, except while offline: then the page stays and the offline notice says the link
 * needs a connection. The header's islands (the mobile menu) are hydrated again like those in
 * `<main>`; the cookie notice is left alone.
 */
import { hydrateIslands, unmountIslands } from "./islands.ts";
import { LINK_OFFLINE, PAGE_OFFLINE, say } from "./offline-notice.ts";

/** The parts of the page a navigation replaces. */
const PARTS = ["header.site-header", "#main", "footer.site-footer"];
const SCROLL = "pressroom:scroll:";

/** The current history entry's key: its scroll position is saved under it. */
let key: string;
/** Path and query of the page on screen (a popstate to it only changed the fragment). */
let shown: string;
let current: AbortController | undefined;
let bar: HTMLElement;
let barTimer: ReturnType<typeof setTimeout>;

export function enhanceNavigation(): void {
  const main = document.getElementById("main");
  if (!main) return;
  const assets = assetsOf(document);
  const status = add("sr-only", "status");
  bar = add("nav-progress", "progressbar");
  bar.ariaLabel = "Loading the page";
  bar.hidden = true;
  enter(history.state);
  history.scrollRestoration = "manual";
  shown = pageOf(location);
  // After a reload or coming back from another site the browser no longer restores the scroll position: we do.
  restoreScroll();

  const navigate = async (url: URL, traversal?: boolean): Promise<void> => {
    current?.abort();
    const controller = new AbortController();
    const { signal } = controller;
    current = controller;
    const fallback = () => {
      controller.abort();
      progress("failed");
      // Offline, a normal load would swap the page being read for the browser's offline page: keep
      // it and say why. Back or forward has already changed the address: its page opens on `online`.
      if (!navigator.onLine) say(traversal ? PAGE_OFFLINE : LINK_OFFLINE);
      else if (traversal) location.reload();
      else location.assign(url);
    };
    const giveUp = setTimeout(fallback, 5000);
    progress("loading");
    try {
      const response = await fetch(url, { signal });
      const final = new URL(response.url);
      const next = new DOMParser().parseFromString(await response.text(), "text/html");
      // Any status: a 404 or 500/503 answer is the site's error page, shown like any page (URL kept).
      if (
        !response.headers.get("content-type")?.startsWith("text/html") ||
        final.origin !== location.origin ||
        assetsOf(next) !== assets
      )
        throw new Error();
      // Loaded: the bar (if shown) completes; the transition is not loading time.
      clearTimeout(giveUp);
      progress("done");
      // Out: the old content fades (not under prefers-reduced-motion: no animation to wait for).
      main.classList.remove("nav-in");
      main.classList.add("nav-out");
      await Promise.all(main.getAnimations().map((animation) => animation.finished));
      if (signal.aborted) return;
      if (!traversal) {
        saveScroll();
        key = newKey();
        final.hash = url.hash;
        // A 404 keeps the URL asked for; a same-origin redirect shows where it went.
        history[final.href === location.href ? "replaceState" : "pushState"]({ key }, "", final);
      }
      shown = pageOf(location);
      // Only the title of <head>: description and canonical matter to crawlers, which load pages normally.
      document.title = next.title;
      for (const selector of PARTS) {
        const part = document.querySelector(selector);
        const replacement = next.querySelector(selector);
        if (!part || !replacement) continue;
        unmountIslands(part);
        part.replaceChildren(...replacement.childNodes);
        hydrateIslands(part);
      }
      main.classList.replace("nav-out", "nav-in");
      // Screen readers hear the new title; keyboard users continue from the top of the content.
      main.focus({ preventScroll: true });
      status.textContent = document.title;
      if (!(traversal && restoreScroll()) && !scrollToTarget(url.hash))
        scrollTo({ top: 0, behavior: "instant" });
      // What stays on the page (the cookie notice's "#cookie-settings") learns the new fragment.
      if (url.hash) dispatchEvent(new HashChangeEvent("hashchange"));
      // A page view for the tag manager (tag-manager-load.ts listens when it runs).
      dispatchEvent(new Event("pressroom:navigated"));
    } catch {
      if (!signal.aborted) fallback();
    } finally {
      clearTimeout(giveUp);
    }
  };

  addEventListener("pagehide", saveScroll);
  // The address moved on (back or forward) while offline and the page on screen is still the old one.
  addEventListener("online", () => {
    if (pageOf(location) !== shown) void navigate(new URL(location.href), true);
  });
  addEventListener("popstate", (event) => {
    saveScroll();
    enter(event.state);
    if (pageOf(location) !== shown) return void navigate(new URL(location.href), true);
    // The same page, another fragment: nothing to fetch.
    current?.abort();
    progress();
    main.classList.remove("nav-out");
    if (!restoreScroll()) scrollToTarget(location.hash);
  });
  document.addEventListener("click", (event) => {
    // Any target (a new tab or frame), downloads and opted-out links: the browser's own behaviour.
    const link = (event.target as Element).closest?.("a[href]:not([target],[download],[data-no-enhance])");
    if (
      event.defaultPrevented ||
      event.button ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey ||
      !(link instanceof HTMLAnchorElement)
    )
      return;
    const url = new URL(link.href);
    if (
      url.origin === location.origin &&
      // The API and files (feeds, PDFs, images): not pages.
      !/^\/api\/|\.(?!html?$)[^./]+$/i.test(url.pathname) &&
      // A fragment of this page: the browser scrolls.
      !(url.hash && pageOf(url) === shown)
    ) {
      event.preventDefault();
      void navigate(url);
    }
  });
}

/**
 * The progress bar: shown only when a load takes longer than 200 ms, then
 * completed (or marked failed) and hidden 500 ms later; no state hides it.
 */
function progress(state?: "loading" | "done" | "failed"): void {
  const show = () => {
    bar.dataset.state = state;
    bar.hidden = false;
  };
  clearTimeout(barTimer);
  if (state === "loading") barTimer = setTimeout(show, 200);
  else if (state && !bar.hidden) {
    show();
    barTimer = setTimeout(progress, 500);
  } else bar.hidden = true;
}

function add(className: string, role: string): HTMLElement {
  const element = document.createElement("div");
  element.className = className;
  element.role = role;
  document.body.append(element);
  return element;
}

function scrollToTarget(hash: string): boolean {
  const target = hash ? document.getElementById(decodeURIComponent(hash.slice(1))) : null;
  target?.scrollIntoView({ behavior: "instant" });
  return !!target;
}

/**
 * Scroll positions per history entry live in sessionStorage, so they survive
 * a reload; without storage (privacy settings), back goes to the top.
 */
function saveScroll(): void {
  try {
    sessionStorage.setItem(SCROLL + key, `${scrollY}`);
  } catch {}
}

function restoreScroll(): boolean {
  try {
    const saved = sessionStorage.getItem(SCROLL + key);
    if (saved) scrollTo({ top: +saved, behavior: "instant" });
    return !!saved;
  } catch {
    return false;
  }
}

/** The stylesheet and entry script: when they differ, a deploy happened and this page's code is stale. */
function assetsOf(page: Document): string {
  return Array.from(
    page.querySelectorAll("link[rel=stylesheet],script[type=module]"),
    (e) => e.outerHTML,
  ).join();
}

function pageOf(url: URL | Location): string {
  return url.pathname + url.search;
}

/**
 * Takes the entry's key, giving it one if it has none (an entry made by a fragment link, or the
 * first page); the rest of the state (chunk-reload.ts's last reload) stays.
 */
function enter(state: { key?: string } | null): void {
  key = state?.key ?? newKey();
  history.replaceState({ ...state, key }, "");
}

function newKey(): string {
  return `${Math.random()}`;
}
