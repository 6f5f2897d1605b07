/**
 * oEmbed HTML comes from third parties and @prismicio/react would insert it
 * raw. It is never inserted here: a player iframe is rebuilt from a validated
 * video id on an allow-listed host (YouTube, Vimeo) with fixed attributes, and
 * anything else becomes a plain link to the embedded page.
 */

export interface OEmbedLike {
  embed_url?: string | null;
  html?: string | null;
  title?: string | null;
  provider_name?: string | null;
  width?: number | string | null;
  height?: number | string | null;
}

export type SafeEmbed =
  | { kind: "player"; src: string; title: string; aspectRatio: string }
  | { kind: "link"; href: string; text: string };

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;
const VIMEO_ID = /^\d{1,12}$/;
const VIMEO_HASH = /^[a-f0-9]{6,20}$/;
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
      title: title || `${player.provider} video`,
      aspectRatio: aspectRatio(oembed.width, oembed.height),
    };
  }
  const href = oembed.embed_url?.trim();
  if (href && /^https?:\/\//i.test(href)) return { kind: "link", href, text: title || href };
  return null;
}

/** The canonical player url for a YouTube or Vimeo page or player url; undefined for anything else. */
export function playerUrl(raw: string): { src: string; provider: string } | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  const host = url.hostname.toLowerCase().replace(/^(www|m)\./, "");
  const parts = url.pathname.split("/").filter(Boolean);
  if (host === "youtube.com" || host === "youtube-nocookie.com" || host === "youtu.be") {
    const id =
      host === "youtu.be"
        ? parts[0]
        : parts[0] === "watch"
          ? (url.searchParams.get("v") ?? undefined)
          : parts[0] === "embed" || parts[0] === "shorts" || parts[0] === "live"
            ? parts[1]
            : undefined;
    if (!id || !YOUTUBE_ID.test(id)) return undefined;
    const start = /^\d{1,6}$/.exec(url.searchParams.get("start") ?? url.searchParams.get("t") ?? "")?.[0];
    return {
      src: `https://www.youtube-nocookie.com/embed/${id}${start ? `?start=${start}` : ""}`,
      provider: "YouTube",
    };
  }
  if (host === "vimeo.com" || host === "player.vimeo.com") {
    const [id, hash] = host === "player.vimeo.com" && parts[0] === "video" ? parts.slice(1) : parts;
    if (!id || !VIMEO_ID.test(id)) return undefined;
    const h = url.searchParams.get("h") ?? hash;
    return {
      src: `https://player.vimeo.com/video/${id}${h && VIMEO_HASH.test(h) ? `?h=${h}` : ""}`,
      provider: "Vimeo",
    };
  }
  return undefined;
}

function aspectRatio(width: unknown, height: unknown): string {
  const w = Number(width);
  const h = Number(height);
  return w > 0 && h > 0 && Number.isFinite(w / h) ? `${Math.round(w)} / ${Math.round(h)}` : "16 / 9";
}

function decodeAttribute(value: string): string {
  return value.replace(/&amp;/g, "&").replace(/&#0*38;/g, "&");
}
