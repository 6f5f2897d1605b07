/**
 * A small notice while the connection is down: a polite live region made
 * here (no server markup), added on `offline`, removed on `online`. The text
 * goes in a moment after the region, so screen readers notice the change.
 */
let notice: HTMLElement | undefined;

export function watchConnection(): void {
  window.addEventListener("offline", show);
  window.addEventListener("online", hide);
  if (!navigator.onLine) show();
}

function show(): void {
  if (notice) return;
  const element = document.createElement("div");
  element.className = "offline-notice";
  element.setAttribute("role", "status");
  document.body.append(element);
  notice = element;
  setTimeout(() => {
    if (notice === element)
      element.textContent = "You are offline. Pages you open may not load until the connection is back.";
  }, 100);
}

function hide(): void {
  notice?.remove();
  notice = undefined;
}
