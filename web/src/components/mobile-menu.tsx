import type { ReactNode } from "react";
import { Island } from "./island.tsx";

/**
 * The navigation on narrow screens. A `<details>` disclosure opens and closes
 * without JavaScript; the island later adds closing on Escape, on outside
 * clicks and after navigating.
 */
export function MobileMenu({ children }: { children: ReactNode }): ReactNode {
  return (
    <Island name="mobile-menu" id="mobile-menu" className="mobile-menu">
      <details className="mobile-menu__details">
        <summary className="mobile-menu__toggle">
          <svg
            className="mobile-menu__icon mobile-menu__icon--open"
            viewBox="0 0 24 24"
            width="22"
            height="22"
            aria-hidden="true"
          >
            <path d="M4 7h16M4 12h16M4 17h16" />
          </svg>
          <svg
            className="mobile-menu__icon mobile-menu__icon--close"
            viewBox="0 0 24 24"
            width="22"
            height="22"
            aria-hidden="true"
          >
            <path d="M6 6l12 12M18 6L6 18" />
          </svg>
          <span>Menu</span>
        </summary>
        <nav className="mobile-menu__panel" aria-label="Main">
          {children}
        </nav>
      </details>
    </Island>
  );
}
