import { CONSENT_EVENT, readConsent } from "./consent.ts";

/**
 * Google Tag Manager for container `id`. The policy (docs/security.md): never with Do Not Track or
 * Global Privacy Control; with a cookie notice, only once the visitor accepted (now or earlier), and
 * declining stops it from the next page on; without one, unless DNT/GPC. Only a script element with
 * a src is added (the CSP allows the host) and the dataLayer is set up here, so no inline code is
 * needed. Pages swapped in by enhanced navigation each push `{event: "page_view", page_path,
 * page_title, page_location}` (the container needs a Custom Event trigger on `page_view`); the first
 * page is the container's own page view (`gtm.js`).
 */
const CONTAINER = /^GTM-[A-Z0-9]{4,12}$/;
const ORIGIN = "https://www.googletagmanager.com";

let loaded = false;

/** `<html data-tag-manager>` says what happened: `off` (DNT/GPC or a bad id), `waiting` (for consent), `loaded`. */
export function startContainer(id: string): void {
  if (!CONTAINER.test(id) || doNotTrack()) {
    state("off");
    return;
  }
  if (!document.querySelector('[data-island="cookie-notice"]') || readConsent() === "accepted") {
    load(id);
    return;
  }
  state("waiting");
  window.addEventListener(CONSENT_EVENT, () => {
    if (readConsent() === "accepted") load(id);
  });
}

function state(value: "off" | "waiting" | "loaded"): void {
  document.documentElement.dataset.tagManager = value;
}

function doNotTrack(): boolean {
  const nav = navigator as Navigator & { globalPrivacyControl?: boolean };
  return nav.doNotTrack === "1" || nav.globalPrivacyControl === true;
}

function load(id: string): void {
  if (loaded) return;
  loaded = true;
  const w = window as unknown as { dataLayer?: unknown[] };
  w.dataLayer = w.dataLayer ?? [];
  w.dataLayer.push({ "gtm.start": Date.now(), event: "gtm.js" });
  // Dispatched by navigation.ts once a page is swapped in place (a string there: no shared chunk for it).
  addEventListener("pressroom:navigated", () =>
    w.dataLayer?.push({
      event: "page_view",
      page_path: location.pathname + location.search,
      page_title: document.title,
      page_location: location.href,
    }),
  );
  const script = document.createElement("script");
  script.async = true;
  script.src = `${ORIGIN}/gtm.js?id=${encodeURIComponent(id)}`;
  document.head.append(script);
  state("loaded");
}
