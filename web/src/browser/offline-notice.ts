/**
 * A small notice while the connection is down: a polite live region made
 * here (no server markup), added on `offline`, removed on `online`. The text
 * goes in a moment after the region (or after it is emptied), so screen
 * readers notice the change.
 */
const OFFLINE = "You are offline. Pages you open may not load until the connection is back.";
/** Said when enhanced navigation (navigation.ts) keeps the page because a link needs the network. */
export const LINK_OFFLINE =
  "You are offline: this link needs a connection. Try it again when the connection is back.";
/** Said when back or forward cannot fetch its page; navigation.ts opens it when the connection returns. */
export const PAGE_OFFLINE =
  "You are offline: that page needs a connection. It opens when the connection is back.";

let notice: HTMLElement | undefined;
let writing: ReturnType<typeof setTimeout> | undefined;

export function watchConnection(): void {
  window.addEventListener("offline", () => say(OFFLINE));
  window.addEventListener("online", hide);
  if (!navigator.onLine) say(OFFLINE);
}

/**
 * Shows the notice with `text`. The same text again is still announced: the region is emptied
 * first, as a second click on a link that needs the network deserves an answer too.
 */
export function say(text: string): void {
  let element = notice;
  if (!element) {
    element = document.createElement("div");
    element.className = "offline-notice";
    element.setAttribute("role", "status");
    document.body.append(element);
    notice = element;
  }
  element.textContent = "";
  clearTimeout(writing);
  writing = setTimeout(() => {
    if (notice === element) element.textContent = text;
  }, 100);
}

function hide(): void {
  clearTimeout(writing);
  notice?.remove();
  notice = undefined;
}
