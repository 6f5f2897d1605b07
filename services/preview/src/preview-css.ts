/**
 * The preview banner and the simulator frame. A stylesheet (not inline
 * styles) because the pages' CSP allows styles from this origin only.
 */
export const PREVIEW_CSS = `
.preview-banner{position:fixed;z-index:2147483000;left:50%;bottom:1rem;transform:translateX(-50%);
display:flex;gap:.75rem;align-items:center;padding:.5rem 1rem;border-radius:999px;
background:#111827;color:#fff;font:600 .875rem/1.2 system-ui,sans-serif;box-shadow:0 4px 16px rgb(0 0 0/.25)}
.preview-banner a{color:#fde68a;text-decoration:underline}
.preview-page{max-width:36rem;margin:4rem auto;padding:0 1.25rem;font:1rem/1.5 system-ui,sans-serif;color:#111827}
.preview-page h1{font-size:1.5rem;line-height:1.2}
.preview-page a{color:#1d4ed8}
.preview-facts{display:grid;grid-template-columns:max-content 1fr;gap:.5rem 1rem;margin:1.5rem 0}
.preview-facts dt{font-weight:600}
.preview-facts dd{margin:0;overflow-wrap:anywhere}
.preview-status{margin:1.5rem 0;padding:.75rem 1rem;border:2px solid;border-radius:.5rem}
.preview-status--served{border-color:#15803d;background:#f0fdf4}
.preview-status--refused{border-color:#b91c1c;background:#fef2f2}
.preview-note{margin:1rem 0;padding:.75rem 1rem;border:2px dashed #b45309;border-radius:.5rem;background:#fffbeb}
.preview-aside{color:#4b5563;font-size:.875rem}
.slice-simulator{position:fixed;inset:0;z-index:100;overflow:auto;background:#fff}
.slice-simulator__message{min-height:100%;background:#fff}
.simulator-slice{display:block}
`;
