import type { ReactNode, Ref } from "react";

export interface MobileMenuItem {
  label: string;
  href: string;
  /** The page shown (aria-current). */
  current: boolean;
  target?: string;
  rel?: string;
}

/** The serialized props: the header navigation, resolved on the server. */
export interface MobileMenuProps {
  items: MobileMenuItem[];
}

/** What the live island adds; the server renders none of it. */
export interface MobileMenuViewProps extends MobileMenuProps {
  /** false (server, first client render): a `<details>` disclosure that works without JavaScript. */
  enhanced?: boolean;
  open?: boolean;
  onToggle?: () => void;
  onNavigate?: () => void;
  detailsRef?: Ref<HTMLDetailsElement>;
  buttonRef?: Ref<HTMLButtonElement>;
  panelRef?: Ref<HTMLElement>;
}

export const PANEL_ID = "mobile-menu-panel";

/**
 * The navigation on narrow screens. The server (and the first client render,
 * so hydration matches) gives a `<details>` disclosure; once live, the island
 * renders a `<button aria-expanded aria-controls>` and a panel instead.
 */
export function MobileMenuView({
  items,
  enhanced = false,
  open = false,
  onToggle,
  onNavigate,
  detailsRef,
  buttonRef,
  panelRef,
}: MobileMenuViewProps): ReactNode {
  const label = (
    <>
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
    </>
  );
  const list = (
    <ul className="mobile-menu__list">
      {items.map((item, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list from the settings; the index keeps keys unique when editors repeat an entry
        <li key={`${index}-${item.label}`} className={index === items.length - 1 ? "nav-cta" : undefined}>
          <a
            href={item.href}
            target={item.target}
            rel={item.rel}
            aria-current={item.current ? "page" : undefined}
          >
            {item.label}
            {item.target === "_blank" ? <span className="sr-only"> (opens in a new tab)</span> : null}
          </a>
        </li>
      ))}
    </ul>
  );
  if (!enhanced) {
    return (
      <details className="mobile-menu__details" ref={detailsRef}>
        <summary className="mobile-menu__toggle">{label}</summary>
        <nav className="mobile-menu__panel" aria-label="Main">
          {list}
        </nav>
      </details>
    );
  }
  return (
    <>
      <button
        type="button"
        className="mobile-menu__toggle"
        aria-expanded={open}
        aria-controls={PANEL_ID}
        onClick={onToggle}
        ref={buttonRef}
      >
        {label}
      </button>
      {/* A click on a link inside is a navigation: the menu closes. */}
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: the links handle the keyboard; this only listens to their activation */}
      <nav
        id={PANEL_ID}
        className="mobile-menu__panel"
        aria-label="Main"
        hidden={!open}
        ref={panelRef}
        onClick={(event) => {
          if ((event.target as Element).closest("a")) onNavigate?.();
        }}
      >
        {list}
      </nav>
    </>
  );
}
