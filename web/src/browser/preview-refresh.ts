/**
 * Preview pages only (served by the preview server). Prismic's toolbar writes
 * a new ref into the preview cookie and fires `prismicPreviewUpdate`; if no
 * one cancels it, it reloads the page. We cancel it and swap in the page
 * rendered at the new ref instead, so scroll position and the toolbar stay.
 * Anything unexpected falls back to the reload the toolbar would have done.
 */

const EXIT_PATH = "/api/exit-preview";

/** The server-rendered nodes of <body>; nodes the toolbar adds later are not ours to replace. */
let serverNodes: ChildNode[] = Array.from(document.body.childNodes).filter((node) => !isScript(node));

function isScript(node: Node): boolean {
  return node.nodeName === "SCRIPT";
}

let refreshing: Promise<void> | undefined;
let again = false;

async function refresh(): Promise<void> {
  const response = await fetch(location.href, {
    credentials: "same-origin",
    cache: "no-store",
    headers: { accept: "text/html" },
  });
  // A preview that ended (410) or a content outage shows its own page: let the browser load it.
  if (!response.ok || !response.headers.get("content-type")?.includes("text/html")) {
    location.reload();
    return;
  }
  const next = new DOMParser().parseFromString(await response.text(), "text/html");
  // Scripts parsed by DOMParser never run, and this page's scripts are already loaded.
  const incoming = Array.from(next.body.childNodes).filter((node) => !isScript(node));
  const anchor = serverNodes.find((node) => node.parentNode === document.body) ?? document.body.firstChild;
  const adopted = incoming.map((node) => document.adoptNode(node));
  for (const node of adopted) document.body.insertBefore(node, anchor);
  for (const node of serverNodes) node.remove();
  serverNodes = adopted;
  document.title = next.title;
  document.dispatchEvent(new CustomEvent("pressroom:preview-refreshed"));
}

function scheduleRefresh(): void {
  // Several updates in a row: one fetch in flight, and one more after it for the newest ref.
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = refresh()
    .catch(() => location.reload())
    .finally(() => {
      refreshing = undefined;
      if (again) {
        again = false;
        scheduleRefresh();
      }
    });
}

window.addEventListener("prismicPreviewUpdate", (event) => {
  event.preventDefault();
  scheduleRefresh();
});

window.addEventListener("prismicPreviewEnd", (event) => {
  event.preventDefault();
  const here = `${location.pathname}${location.search}`;
  location.assign(`${EXIT_PATH}?path=${encodeURIComponent(here)}`);
});
