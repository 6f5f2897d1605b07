/** When the browser is idle (at the latest 2 s on), or 200 ms on where it cannot say. */
export function whenIdle(callback: () => void): void {
  if ("requestIdleCallback" in window) requestIdleCallback(callback, { timeout: 2000 });
  else setTimeout(callback, 200);
}

/** Once the page has loaded (images included), when the browser is idle. */
export function afterLoad(callback: () => void): void {
  if (document.readyState === "complete") whenIdle(callback);
  else addEventListener("load", () => whenIdle(callback), { once: true });
}
