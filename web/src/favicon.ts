import { PALETTE } from "./styles/palette.ts";

/**
 * The favicon, drawn from the brand's palette: a compass needle pointing
 * north (the logo's mark) on a navy tile, legible at 16 px. Not taken from the
 * content, so that assets never depend on a publish.
 */
export function faviconSvg(): string {
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">',
    `<rect width="64" height="64" rx="14" fill="${PALETTE.navy}"/>`,
    `<circle cx="32" cy="32" r="22" fill="none" stroke="${PALETTE.sky}" stroke-width="3"/>`,
    `<path d="M32 8 41 34 32 29 23 34Z" fill="${PALETTE.coral}"/>`,
    `<path d="M32 56 41 30 32 35 23 30Z" fill="${PALETTE.sand}"/>`,
    "</svg>",
  ].join("");
}
