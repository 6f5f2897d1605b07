import type { Root } from "react-dom/client";
import { loadChunk } from "./chunk-reload.ts";
import { whenIdle } from "./idle.ts";
import { ISLANDS, type IslandModule } from "./island-registry.ts";
import { ISLAND_WAKE } from "./island-wake.ts";

const roots = new Map<Element, Root>();
/** Islands whose wake-up is already set up (a listener or the observer): never twice. */
const armed = new WeakSet<Element>();
let observer: IntersectionObserver | undefined;

/** What the first gesture on an `interaction` island may be. */
const GESTURES = ["pointerdown", "focusin", "keydown", "click"] as const;
/** A gesture still under way after this long no longer holds hydration back. */
const GESTURE_LIMIT_MS = 1000;

/**
 * Finds the islands under `scope` and sets up when each hydrates from its server HTML and the JSON
 * props beside it (island-wake.ts): on the first interaction or near the viewport. React itself
 * loads with the first island to wake, so a page nobody touches never downloads it. Called again
 * after enhanced navigation or a preview refresh: islands already live or armed are left alone.
 * Islands without a chunk are not React's: the cookie notice is made live by a plain module of
 * the entry (cookie-notice.ts).
 */
export function hydrateIslands(scope: ParentNode = document): void {
  for (const element of scope.querySelectorAll<HTMLElement>("[data-island]")) {
    const name = element.dataset.island ?? "";
    if (roots.has(element) || element.dataset.hydrating !== undefined || !ISLANDS[name]) continue;
    const wake = ISLAND_WAKE[name] ?? "visible";
    if (armed.has(element)) continue;
    armed.add(element);
    if (wake === "interaction") wakeOnInteraction(element);
    else {
      if (wake === "visible-or-focus")
        element.addEventListener("focusin", () => void hydrate(element), { once: true });
      observe(element);
    }
  }
}

/** Unmounts the islands under `scope` (before enhanced navigation replaces it). */
export function unmountIslands(scope: ParentNode): void {
  for (const [element, root] of roots) {
    if (!scope.contains(element)) continue;
    root.unmount();
    roots.delete(element);
  }
  for (const element of scope.querySelectorAll("[data-island]")) observer?.unobserve(element);
}

/**
 * The preview server swaps a page's body in place when an editor's draft
 * changes (preview-refresh.ts): the old islands are gone from the document,
 * the new ones are server markup waiting to hydrate.
 */
document.addEventListener("pressroom:preview-refreshed", () => {
  for (const [element, root] of roots) {
    if (element.isConnected) continue;
    root.unmount();
    roots.delete(element);
  }
  hydrateIslands();
});

function observe(element: HTMLElement): void {
  if (!("IntersectionObserver" in window)) {
    whenIdle(() => void hydrate(element));
    return;
  }
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer?.unobserve(entry.target);
        void hydrate(entry.target as HTMLElement);
      }
    },
    { rootMargin: "200px" },
  );
  observer.observe(element);
}

/**
 * The first gesture on the island starts loading React and its chunk at once; hydration waits
 * until that gesture is over (the click after a pointerdown, the keyup after a keydown), so the
 * server markup answers the whole gesture (the menu's `<details>` opens in the same tap) and the
 * island takes over from the state it left (open, focused).
 */
function wakeOnInteraction(element: HTMLElement): void {
  const wake = (event: Event) => {
    for (const type of GESTURES) element.removeEventListener(type, wake, true);
    const settled =
      event.type === "pointerdown"
        ? gestureOver(["click", "pointercancel"])
        : event.type === "keydown"
          ? gestureOver(["keyup"])
          : nextTask();
    void hydrate(element, settled);
  };
  for (const type of GESTURES) element.addEventListener(type, wake, { capture: true, passive: true });
}

/** Resolves a task after the first of `ends` on the document (the gesture's own default action done). */
function gestureOver(ends: readonly string[]): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const type of ends) document.removeEventListener(type, done, true);
      clearTimeout(timer);
      setTimeout(resolve, 0);
    };
    for (const type of ends) document.addEventListener(type, done, true);
    const timer = setTimeout(done, GESTURE_LIMIT_MS);
  });
}

function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

async function hydrate(element: HTMLElement, ready?: Promise<void>): Promise<void> {
  const name = element.dataset.island ?? "";
  const load = ISLANDS[name];
  if (!load || !element.isConnected || element.dataset.hydrating !== undefined || roots.has(element)) return;
  element.dataset.hydrating = "";
  try {
    const [reactDomClient, react, island] = await Promise.all([
      loadChunk(() => import("react-dom/client")),
      loadChunk(() => import("react")),
      loadChunk<IslandModule>(load),
      ready,
    ]);
    // React is CommonJS: esbuild's chunk for a dynamic import of it has only a default export.
    const { hydrateRoot } = commonJs(reactDomClient);
    const { createElement } = commonJs(react);
    if (!element.isConnected) return;
    const props = readProps(element);
    const root = hydrateRoot(element, createElement(island.default as never, props as never), {
      onRecoverableError: (error) => console.warn(`Island "${name}" re-rendered on the client:`, error),
    });
    roots.set(element, root);
    // Tests and styles can tell a live island from server markup.
    element.dataset.hydrated = "";
  } catch (error) {
    console.error(`Island "${name}" could not start; its server markup stays.`, error);
  } finally {
    delete element.dataset.hydrating;
  }
}

function commonJs<T>(module: T): T {
  return (module as { default?: T }).default ?? module;
}

function readProps(element: HTMLElement): unknown {
  const id = element.dataset.islandId;
  const script = id ? document.querySelector(`script[data-island-props="${CSS.escape(id)}"]`) : null;
  return script?.textContent ? JSON.parse(script.textContent) : {};
}
