import { asLink, isFilled } from "@prismicio/client";
import type { ReactNode } from "react";
import type { SettingsDocument } from "../content/index.ts";
import { AppLink } from "./app-link.tsx";
import { ContentImage } from "./content-image.tsx";
import { MobileMenu } from "./mobile-menu.tsx";
import { SharedMarkup } from "./shared-markup.tsx";

export type NavItem = SettingsDocument["data"]["header_navigation"][number];

/**
 * A logo at least this many times wider than tall is a wordmark (it already
 * spells the brand), so the brand name is kept for screen readers only.
 */
const WORDMARK_RATIO = 2.5;

export function SiteHeader({ settings, currentPath }: { settings: SettingsDocument; currentPath: string }) {
  const { brand_name, logo, header_navigation } = settings.data;
  const brand = brand_name ?? "";
  const wordmark = isFilled.image(logo) && logo.dimensions.width >= WORDMARK_RATIO * logo.dimensions.height;
  const items = header_navigation.filter((item) => item.label && isFilled.link(item.link));
  // The navigation differs between pages only in the entry marked current: one variant per entry,
  // and one for every page the navigation does not list (shared-markup.tsx).
  const variant = items.some((item) => asLink(item.link) === currentPath) ? currentPath : "";
  return (
    <header className="site-header">
      <div className="container site-header__inner">
        <a className="brand" href="/" aria-current={currentPath === "/" ? "page" : undefined}>
          <ContentImage field={logo} sizes="180px" eager decorative className="brand__logo" />
          <span className={wordmark ? "sr-only" : "brand__name"}>{brand}</span>
        </a>
        {items.length > 0 ? (
          <>
            <SharedMarkup
              as="nav"
              className="site-nav"
              aria-label="Main"
              source={settings}
              cacheKey={variant}
            >
              {() => <NavList items={items} currentPath={currentPath} className="site-nav__list" />}
            </SharedMarkup>
            <MobileMenu items={items} currentPath={currentPath} shared={{ source: settings, key: variant }} />
          </>
        ) : null}
      </div>
    </header>
  );
}

/** The last entry is the header's call to action (styled as a button on wide screens). */
function NavList({
  items,
  currentPath,
  className,
}: {
  items: NavItem[];
  currentPath: string;
  className: string;
}): ReactNode {
  return (
    <ul className={className}>
      {items.map((item, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rendered once on the server and never reordered; the index keeps keys unique when editors repeat an entry
        <li key={`${index}-${item.label}`} className={index === items.length - 1 ? "nav-cta" : undefined}>
          <AppLink field={item.link} aria-current={asLink(item.link) === currentPath ? "page" : undefined}>
            {item.label}
          </AppLink>
        </li>
      ))}
    </ul>
  );
}
