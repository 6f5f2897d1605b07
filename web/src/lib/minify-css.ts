/**
 * Light, safe CSS minification: comments and redundant whitespace go. Spaces
 * inside values are kept (calc(), min() and selectors need them); only those
 * next to `{ } ; ,` and before `!important` go. The output is deterministic.
 */
export function minifyCss(css: string): string {
  return css
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\s+/g, " ")
    .replace(/\s*([{};,])\s*/g, "$1")
    .replace(/;}/g, "}")
    .replace(/\s*!important/g, "!important")
    .trim();
}
