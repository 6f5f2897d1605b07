/**
 * The visitor's cookie choice, kept in localStorage so that it holds on every
 * page of the site. The cookie notice writes it; the tag manager reads it and
 * listens for changes. Nothing here runs before someone asks.
 */
export type Consent = "accepted" | "declined";

export const CONSENT_KEY = "pressroom:consent";
/** Dispatched on `window` (detail: the new Consent) whenever the choice changes. */
export const CONSENT_EVENT = "pressroom:consent";

/** The stored choice, or undefined when the visitor has not chosen (or storage is off). */
export function readConsent(): Consent | undefined {
  try {
    const value = localStorage.getItem(CONSENT_KEY);
    return value === "accepted" || value === "declined" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Remembers the choice, marks `<html>` (the stylesheet hides the notice) and tells the page. */
export function writeConsent(consent: Consent): void {
  try {
    localStorage.setItem(CONSENT_KEY, consent);
  } catch {
    // Storage off: the choice holds for this page only.
  }
  markConsent(consent);
  window.dispatchEvent(new CustomEvent<Consent>(CONSENT_EVENT, { detail: consent }));
}

/**
 * `<html data-consent="accepted|declined|unset">`: set by the entry as soon as
 * it runs, so a notice the visitor already answered never shows, and (with
 * JavaScript) the in-flow notice waits for its island before appearing.
 */
export function markConsent(consent: Consent | "unset"): void {
  document.documentElement.dataset.consent = consent;
}
