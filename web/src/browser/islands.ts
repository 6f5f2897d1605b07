import type { Root } from "react-dom/client";
import { loadChunk } from "./chunk-reload.ts";
import { HYDRATE_WHEN_VISIBLE, ISLANDS } from "./island-registry.ts";

const roots = new Map<Element, Root>();
let observer: IntersectionObserver | undefined;

/**
 * Finds the islands under `scope` and hydrates each from its server HTML and
 * the JSON props beside it: those in HYDRATE_WHEN_VISIBLE when they come near
 * the viewport, the rest when the browser is idle. React itself loads with the
 * first island, so a page without islands never downloads it.
 */
export function hydrateIslands(scope: ParentNode = document): void {
  for (const element of scope.querySelectorAll<HTMLElement>("[data-island]")) {
    const name = element.dataset.island ?? "";
    if (roots.has(element) || element.dataset.hydrating !== undefined || !ISLANDS[name]) continue;
    element.dataset.hydrating = "";
    if (HYDRATE_WHEN_VISIBLE.has(name) && "IntersectionObserver" in window) {
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
    } else {
      whenIdle(() => void hydrate(element));
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

async function hydrate(element: HTMLElement): Promise<void> {
  const name = element.dataset.island ?? "";
  const load = ISLANDS[name];
  if (!load || !element.isConnected) return;
  try {
    const [reactDomClient, react, island] = await Promise.all([
      loadChunk(() => import("react-dom/client")),
      loadChunk(() => import("react")),
      loadChunk(load),
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

function whenIdle(callback: () => void): void {
  if ("requestIdleCallback" in window) requestIdleCallback(callback, { timeout: 2000 });
  else setTimeout(callback, 200);
}
