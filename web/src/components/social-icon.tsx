import type { ReactNode } from "react";

/** Display names, for accessible labels. */
export const NETWORK_NAMES: Record<string, string> = {
  x: "X",
  linkedin: "LinkedIn",
  instagram: "Instagram",
  facebook: "Facebook",
  youtube: "YouTube",
  github: "GitHub",
};

/**
 * Small line icons drawn for this site (24×24, stroked in currentColor),
 * decorative: the link around them carries the network's name.
 */
const ICONS: Record<string, ReactNode> = {
  x: <path d="M5 4l14 16M19 4L5 20" />,
  linkedin: (
    <>
      <rect x="3" y="3" width="18" height="18" rx="4" />
      <path d="M8 10.5V17M8 7.4v.1M12 17v-6.5M12 13.5c0-1.8 1.2-3 2.7-3s2.3 1 2.3 2.8V17" />
    </>
  ),
  instagram: (
    <>
      <rect x="3" y="3" width="18" height="18" rx="5" />
      <circle cx="12" cy="12" r="4" />
      <path d="M17.2 6.8v.1" />
    </>
  ),
  facebook: (
    <>
      <rect x="3" y="3" width="18" height="18" rx="4" />
      <path d="M15.5 7.5h-1.8c-1.2 0-2 .8-2 2V21M9.5 13h5" />
    </>
  ),
  youtube: (
    <>
      <rect x="2.5" y="5.5" width="19" height="13" rx="4" />
      <path d="M10.5 9.5v5l4-2.5z" />
    </>
  ),
  github: (
    <>
      <path d="M5.6 10.2 5 4.5l4.2 2.4a8.6 8.6 0 0 1 5.6 0L19 4.5l-.6 5.7A7 7 0 0 1 12 20a7 7 0 0 1-6.4-9.8Z" />
      <path d="M9.5 13.5v.1M14.5 13.5v.1" />
    </>
  ),
};

const FALLBACK = <circle cx="12" cy="12" r="8" />;

export function SocialIcon({ network }: { network: string }): ReactNode {
  return (
    <svg
      className="icon"
      viewBox="0 0 24 24"
      width="20"
      height="20"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {ICONS[network] ?? FALLBACK}
    </svg>
  );
}
