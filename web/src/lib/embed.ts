import { type EmbedShape, playerUrl } from "./embed-providers.ts";

/**
 * oEmbed HTML comes from third parties and @prismicio/react would insert it
 * raw. It is never inserted here: a player iframe is rebuilt from validated
 * ids on an allow-listed host (embed-providers.ts: YouTube, Vimeo, Google
 * Maps, Spotify, SoundCloud, X, Instagram) with fixed attributes, and anything
 * else becomes a plain link to the embedded page.
 */

export { playerUrl } from "./embed-providers.ts";

export interface OEmbedLike {
  embed_url?: string | null;
  html?: string | null;
  title?: string | null;
  provider_name?: string | null;
  width?: number | string | null;
  height?: number | string | null;
}

export type SafeEmbed =
  | { kind: "player"; src: string; title: string; shape: EmbedShape }
  | { kind: "link"; href: string; text: string };

const IFRAME_SRC = /<iframe\b[^>]*?\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)')/i;

export function safeEmbed(oembed: OEmbedLike | null | undefined): SafeEmbed | null {
  if (!oembed) return null;
  const fromHtml = typeof oembed.html === "string" ? IFRAME_SRC.exec(oembed.html) : null;
  const htmlSrc = fromHtml ? decodeAttribute(fromHtml[1] ?? fromHtml[2] ?? "") : undefined;
  const player = (htmlSrc && playerUrl(htmlSrc)) || (oembed.embed_url && playerUrl(oembed.embed_url));
  const title = (oembed.title ?? "").trim();
  if (player) {
    return {
      kind: "player",
      src: player.src,
      title: title || `${player.provider} embed`,
      shape: player.shape ?? videoShape(oembed.width, oembed.height),
    };
  }
  const href = oembed.embed_url?.trim();
  if (href && /^https?:\/\//i.test(href)) return { kind: "link", href, text: title || href };
  return null;
}

/** The nearest of the video boxes the stylesheet has (16:9 when the oEmbed gives no size). */
function videoShape(width: unknown, height: unknown): EmbedShape {
  const ratio = Number(width) / Number(height);
  if (!(ratio > 0 && Number.isFinite(ratio))) return "16x9";
  const boxes: [EmbedShape, number][] = [
    ["16x9", 16 / 9],
    ["4x3", 4 / 3],
    ["1x1", 1],
    ["9x16", 9 / 16],
  ];
  return boxes.reduce((best, box) =>
    Math.abs(Math.log(box[1] / ratio)) < Math.abs(Math.log(best[1] / ratio)) ? box : best,
  )[0];
}

function decodeAttribute(value: string): string {
  return value.replace(/&amp;/g, "&").replace(/&#0*38;/g, "&");
}
