import { describe, expect, it } from "vitest";
import { securityHeaders } from "#preview/security-headers.ts";
import { SECURITY_HEADERS } from "#site/app.ts";
import { safeEmbed } from "#web/lib/embed.ts";
import { EMBED_FRAME_ORIGINS, playerUrl } from "#web/lib/embed-providers.ts";

/**
 * The allow-listed oEmbed providers: what an editor pastes (or the oEmbed gives) and the player
 * the site rebuilds from it, or a plain link for anything it cannot vouch for.
 */
const PLAYERS: [string, string, string][] = [
  [
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42",
    "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=42",
    "16x9",
  ],
  ["https://vimeo.com/76979871", "https://player.vimeo.com/video/76979871", "16x9"],
  [
    "https://www.google.com/maps/embed?pb=!1m18!1m12!1m3!1d2795.7!2d-122.67!3d45.52",
    "https://www.google.com/maps/embed?pb=!1m18!1m12!1m3!1d2795.7!2d-122.67!3d45.52",
    "4x3",
  ],
  [
    "https://maps.google.com/maps?q=Pioneer Courthouse Square, Portland",
    "https://www.google.com/maps?q=Pioneer%20Courthouse%20Square%2C%20Portland&output=embed",
    "4x3",
  ],
  [
    "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC?si=abc",
    "https://open.spotify.com/embed/track/4uLU6hMCjMI75M1A2tKUQC",
    "audio",
  ],
  [
    "https://open.spotify.com/embed/playlist/37i9dQZF1DXcBWIGoYBM5M",
    "https://open.spotify.com/embed/playlist/37i9dQZF1DXcBWIGoYBM5M",
    "audio-tall",
  ],
  [
    "https://soundcloud.com/forss/flickermood",
    "https://w.soundcloud.com/player/?url=https%3A%2F%2Fsoundcloud.com%2Fforss%2Fflickermood",
    "audio-tall",
  ],
  [
    "https://w.soundcloud.com/player/?visual=true&url=https%3A%2F%2Fapi.soundcloud.com%2Ftracks%2F293&show_artwork=true",
    "https://w.soundcloud.com/player/?url=https%3A%2F%2Fapi.soundcloud.com%2Ftracks%2F293",
    "audio-tall",
  ],
  [
    "https://x.com/northwind/status/1460323737035677698",
    "https://platform.twitter.com/embed/Tweet.html?id=1460323737035677698&dnt=true",
    "post",
  ],
  [
    "https://twitter.com/northwind/status/20",
    "https://platform.twitter.com/embed/Tweet.html?id=20&dnt=true",
    "post",
  ],
  ["https://www.instagram.com/p/CxYz123_-Ab/", "https://www.instagram.com/p/CxYz123_-Ab/embed", "post"],
];

const LINKS = [
  "https://evil.example/video",
  "https://www.google.com/search?q=maps",
  "https://www.google.com/maps/embed?pb=<script>",
  "https://open.spotify.com/track/not-an-id",
  "https://open.spotify.com/user/someone",
  "https://soundcloud.com/forss",
  "https://w.soundcloud.com/player/?url=https%3A%2F%2Fevil.example%2Ftracks%2F1",
  "https://x.com/northwind",
  "https://x.com/northwind/status/12ab",
  "https://www.instagram.com/northwind/",
  "https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ",
  "javascript:alert(1)//open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC",
];

function frameSrc(csp: string | undefined): string[] {
  const directive = csp?.split(";").find((part) => part.trim().startsWith("frame-src"));
  return directive?.trim().split(/\s+/).slice(1) ?? [];
}

describe("embed providers", () => {
  it.each(PLAYERS)("%s → a player at %s", (input, src, shape) => {
    expect(safeEmbed({ embed_url: input, title: "T" })).toEqual({ kind: "player", src, title: "T", shape });
  });

  it("reads the player from the oEmbed's iframe, keeping nothing else of its HTML", () => {
    const embed = safeEmbed({
      embed_url: "https://soundcloud.com/forss/flickermood",
      html: '<iframe width="100%" height="400" scrolling="no" onload="alert(1)" src="https://w.soundcloud.com/player/?visual=true&amp;url=https%3A%2F%2Fapi.soundcloud.com%2Ftracks%2F293&amp;show_artwork=true"></iframe>',
    });
    expect(embed).toEqual({
      kind: "player",
      src: "https://w.soundcloud.com/player/?url=https%3A%2F%2Fapi.soundcloud.com%2Ftracks%2F293",
      title: "SoundCloud embed",
      shape: "audio-tall",
    });
  });

  it("sizes videos by the nearest box the stylesheet has (no inline style)", () => {
    const video = (width: number, height: number) =>
      safeEmbed({ embed_url: "https://youtu.be/dQw4w9WgXcQ", width, height });
    expect(video(480, 270)).toMatchObject({ shape: "16x9" });
    expect(video(640, 480)).toMatchObject({ shape: "4x3" });
    expect(video(500, 500)).toMatchObject({ shape: "1x1" });
    expect(video(270, 480)).toMatchObject({ shape: "9x16" });
  });

  it.each(LINKS)("%s stays a link (or nothing)", (input) => {
    const embed = safeEmbed({ embed_url: input, html: `<iframe src="${input}"></iframe>` });
    expect(embed?.kind ?? "nothing").not.toBe("player");
    expect(playerUrl(input)).toBeUndefined();
  });

  it("every player's origin is allowed by the frame-src of the site server and the preview server", () => {
    const origins = new Set(PLAYERS.map(([, src]) => new URL(src).origin));
    expect([...origins].sort()).toEqual([...EMBED_FRAME_ORIGINS].sort());
    const site = frameSrc(SECURITY_HEADERS["content-security-policy"]);
    for (const options of [
      { toolbar: false, simulator: false },
      { toolbar: true, simulator: true },
    ]) {
      const preview = frameSrc(securityHeaders(options)["content-security-policy"]);
      for (const origin of EMBED_FRAME_ORIGINS) {
        expect(site).toContain(origin);
        expect(preview).toContain(origin);
      }
    }
  });
});
