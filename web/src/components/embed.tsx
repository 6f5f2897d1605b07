import type { ReactNode } from "react";
import { type OEmbedLike, safeEmbed } from "../lib/embed.ts";

/**
 * An oEmbed value, rebuilt safely (see lib/embed.ts): a lazy, sandboxed player iframe or a link.
 * Its box comes from a class (`embed--16x9`, `embed--audio`, …): the CSP blocks inline styles.
 */
export function Embed({ oembed }: { oembed: OEmbedLike | null | undefined }): ReactNode {
  const embed = safeEmbed(oembed);
  if (!embed) return null;
  if (embed.kind === "link") {
    return (
      <p className="embed-link">
        <a href={embed.href} rel="noreferrer">
          {embed.text}
        </a>
      </p>
    );
  }
  return (
    <div className={`embed embed--${embed.shape}`}>
      <iframe
        src={embed.src}
        title={embed.title}
        loading="lazy"
        allow="accelerometer; encrypted-media; gyroscope; picture-in-picture; fullscreen"
        allowFullScreen
        referrerPolicy="strict-origin-when-cross-origin"
        // The player's own origin, never ours; links it opens (the provider's page) are ordinary tabs.
        sandbox="allow-scripts allow-same-origin allow-presentation allow-popups allow-popups-to-escape-sandbox"
      />
    </div>
  );
}
