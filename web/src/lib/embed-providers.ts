/**
 * The oEmbed providers the site shows as players, allow-listed by host. Each
 * turns a page or player URL (the oEmbed `embed_url`, or the `src` of the
 * iframe in its `html`) into a canonical player URL rebuilt from validated
 * ids, plus the box it needs; nothing of the provider's HTML is kept. The
 * frame origins are what the CSP's `frame-src` must allow (site server and
 * preview server; tests/unit/embed-providers.test.ts keeps them in step).
 */

/**
 * The player's box, as a class (`embed--<shape>` in components.css): inline
 * styles are blocked by the site's CSP (`style-src 'self'`).
 * Videos keep their proportions; audio and posts have the provider's height.
 */
export type EmbedShape = "16x9" | "4x3" | "1x1" | "9x16" | "audio" | "audio-tall" | "post";

export interface Player {
  src: string;
  provider: string;
  /** Fixed by the provider (audio, posts); videos get theirs from the oEmbed's width and height. */
  shape?: EmbedShape;
}

export const EMBED_FRAME_ORIGINS = [
  "https://www.youtube-nocookie.com",
  "https://player.vimeo.com",
  "https://www.google.com",
  "https://open.spotify.com",
  "https://w.soundcloud.com",
  "https://platform.twitter.com",
  "https://www.instagram.com",
] as const;

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;
const VIMEO_ID = /^\d{1,12}$/;
const VIMEO_HASH = /^[a-f0-9]{6,20}$/;
const SPOTIFY_TYPES = new Set(["track", "album", "playlist", "episode", "show", "artist"]);
const SPOTIFY_ID = /^[A-Za-z0-9]{22}$/;
const SLUG = /^[A-Za-z0-9_-]{1,100}$/;
const TWEET_ID = /^\d{1,20}$/;
const INSTAGRAM_CODE = /^[A-Za-z0-9_-]{5,40}$/;
/** Google's `pb` map description: `!1m18!1m12…` (letters, digits and a few separators). */
const MAPS_PB = /^[A-Za-z0-9!._%:*-]{1,2000}$/;

type Recognize = (url: URL, parts: string[]) => Player | undefined;

/** Host (without `www.`/`m.`) → how to rebuild its player. */
const PROVIDERS: Record<string, Recognize> = {
  "youtube.com": youtube,
  "youtube-nocookie.com": youtube,
  "youtu.be": youtube,
  "vimeo.com": vimeo,
  "player.vimeo.com": vimeo,
  "google.com": googleMaps,
  "maps.google.com": googleMaps,
  "open.spotify.com": spotify,
  "soundcloud.com": soundcloud,
  "w.soundcloud.com": soundcloud,
  "twitter.com": post,
  "x.com": post,
  "platform.twitter.com": post,
  "instagram.com": instagram,
};

/** The canonical player for an allow-listed provider's page or player URL; undefined for anything else. */
export function playerUrl(raw: string): Player | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  const host = url.hostname.toLowerCase().replace(/^(www|m)\./, "");
  return PROVIDERS[host]?.(url, url.pathname.split("/").filter(Boolean));
}

function youtube(url: URL, parts: string[]): Player | undefined {
  const id =
    url.hostname === "youtu.be"
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

function vimeo(url: URL, parts: string[]): Player | undefined {
  const [id, hash] = url.hostname === "player.vimeo.com" && parts[0] === "video" ? parts.slice(1) : parts;
  if (!id || !VIMEO_ID.test(id)) return undefined;
  const h = url.searchParams.get("h") ?? hash;
  return {
    src: `https://player.vimeo.com/video/${id}${h && VIMEO_HASH.test(h) ? `?h=${h}` : ""}`,
    provider: "Vimeo",
  };
}

/** `google.com/maps/embed?pb=…` (Google's share → embed code), or a place search `maps?q=…`. */
function googleMaps(url: URL, parts: string[]): Player | undefined {
  if (parts[0] !== "maps") return undefined;
  const pb = url.searchParams.get("pb");
  if (parts[1] === "embed" && pb && MAPS_PB.test(pb))
    return { src: `https://www.google.com/maps/embed?pb=${pb}`, provider: "Google Maps", shape: "4x3" };
  const q = url.searchParams.get("q")?.trim();
  if (q && q.length <= 200)
    return {
      src: `https://www.google.com/maps?q=${encodeURIComponent(q)}&output=embed`,
      provider: "Google Maps",
      shape: "4x3",
    };
  return undefined;
}

function spotify(_url: URL, parts: string[]): Player | undefined {
  const [type, id] = parts[0] === "embed" ? parts.slice(1) : parts;
  if (!type || !SPOTIFY_TYPES.has(type) || !id || !SPOTIFY_ID.test(id)) return undefined;
  return {
    src: `https://open.spotify.com/embed/${type}/${id}`,
    provider: "Spotify",
    shape: type === "track" || type === "episode" ? "audio" : "audio-tall",
  };
}

/** A track or set page (`soundcloud.com/<artist>/<track>`, `…/sets/<set>`), or the player's `url=`. */
function soundcloud(url: URL, parts: string[]): Player | undefined {
  if (url.hostname === "w.soundcloud.com") {
    const inner = url.searchParams.get("url");
    const api = inner ? /^https:\/\/api\.soundcloud\.com\/(tracks|playlists)\/(\d{1,20})$/.exec(inner) : null;
    return api ? soundcloudPlayer(`https://api.soundcloud.com/${api[1]}/${api[2]}`) : undefined;
  }
  const [artist, ...rest] = parts;
  const path = rest.length === 1 ? rest : rest[0] === "sets" && rest.length === 2 ? rest : undefined;
  if (!artist || !SLUG.test(artist) || !path?.every((part) => SLUG.test(part))) return undefined;
  return soundcloudPlayer(`https://soundcloud.com/${artist}/${path.join("/")}`);
}

function soundcloudPlayer(track: string): Player {
  return {
    src: `https://w.soundcloud.com/player/?url=${encodeURIComponent(track)}`,
    provider: "SoundCloud",
    shape: "audio-tall",
  };
}

/** A post on X (Twitter): `x.com/<user>/status/<id>`, shown by X's own post frame. */
function post(url: URL, parts: string[]): Player | undefined {
  const id =
    url.hostname === "platform.twitter.com"
      ? url.searchParams.get("id")
      : parts[1] === "status"
        ? parts[2]
        : "";
  if (!id || !TWEET_ID.test(id)) return undefined;
  return {
    src: `https://platform.twitter.com/embed/Tweet.html?id=${id}&dnt=true`,
    provider: "X",
    shape: "post",
  };
}

function instagram(_url: URL, parts: string[]): Player | undefined {
  const [kind, code] = parts;
  if ((kind !== "p" && kind !== "reel") || !code || !INSTAGRAM_CODE.test(code)) return undefined;
  return { src: `https://www.instagram.com/${kind}/${code}/embed`, provider: "Instagram", shape: "post" };
}
