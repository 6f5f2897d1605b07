import { asLinkAttrs, isFilled } from "@prismicio/client";
import type { ReactNode } from "react";
import {
  type MobileMenuItem,
  type MobileMenuProps,
  MobileMenuView,
} from "../browser/islands/mobile-menu.tsx";
import type { SettingsDocument } from "../content/index.ts";
import { isSafeHref } from "../lib/safe-href.ts";
import { Island } from "./island.tsx";

type NavItem = SettingsDocument["data"]["header_navigation"][number];

/**
 * The navigation on narrow screens, an island. Its server HTML is a
 * `<details>` disclosure that opens and closes without JavaScript; the live
 * island replaces it with a button and panel (islands/mobile-menu.client.tsx).
 */
export function MobileMenu({
  items,
  currentPath,
  shared,
}: {
  items: NavItem[];
  currentPath: string;
  /** Pages with this source and key show the same menu (shared-markup.tsx). */
  shared?: { source: object; key: string };
}): ReactNode {
  const props = (): MobileMenuProps => ({ items: items.flatMap((item) => menuItem(item, currentPath)) });
  return (
    <Island
      name="mobile-menu"
      id="mobile-menu"
      className="mobile-menu"
      component={MobileMenuView}
      props={props}
      {...(shared ? { shared } : {})}
    />
  );
}

function menuItem(item: NavItem, currentPath: string): MobileMenuItem[] {
  if (!item.label || !isFilled.link(item.link)) return [];
  const { href, target, rel } = asLinkAttrs(item.link);
  if (!isSafeHref(href)) return [];
  return [
    {
      label: item.label,
      href,
      current: href === currentPath,
      ...(target ? { target } : {}),
      ...(rel ? { rel } : {}),
    },
  ];
}
