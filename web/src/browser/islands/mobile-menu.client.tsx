import { useEffect, useRef, useState } from "react";
import { type MobileMenuProps, MobileMenuView } from "./mobile-menu.tsx";

/** Wide enough for the header's own navigation (layout.css hides the menu there). */
const WIDE = "(min-width: 60rem)";

/**
 * Hydrates the `<details>` the server rendered, then swaps it for a button
 * and panel (a render after hydration, so nothing mismatches), keeping it
 * open and focused if the visitor had already opened it. While open: Tab and
 * Shift+Tab cycle through the button and the links, Escape closes and returns
 * focus to the button, a click outside or on a link closes it, and so does
 * going back or forward, or the screen becoming wide.
 */
export default function MobileMenu(props: MobileMenuProps) {
  const [enhanced, setEnhanced] = useState(false);
  const [open, setOpen] = useState(false);
  const details = useRef<HTMLDetailsElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLElement>(null);
  const focusButton = useRef(false);

  useEffect(() => {
    const element = details.current;
    focusButton.current = !!element?.contains(document.activeElement);
    setOpen(!!element?.open);
    setEnhanced(true);
  }, []);

  useEffect(() => {
    if (enhanced && focusButton.current) {
      focusButton.current = false;
      button.current?.focus();
    }
  }, [enhanced]);

  useEffect(() => {
    if (!open) return;
    const close = (refocus: boolean) => {
      setOpen(false);
      if (refocus) button.current?.focus();
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        event.preventDefault();
        close(true);
      } else if (event.key === "Tab") {
        const stops = [
          button.current,
          ...(panel.current?.querySelectorAll<HTMLElement>("a[href]") ?? []),
        ].filter((element): element is HTMLElement => !!element);
        const first = stops[0];
        const last = stops[stops.length - 1];
        const active = document.activeElement as HTMLElement | null;
        const inside = stops.some((element) => element === active);
        if (!inside || (event.shiftKey && active === first)) {
          event.preventDefault();
          (event.shiftKey ? last : first)?.focus();
        } else if (!event.shiftKey && active === last) {
          event.preventDefault();
          first?.focus();
        }
      }
    };
    const onPointerDown = (event: PointerEvent) => {
      const root = button.current?.parentElement;
      if (root && !root.contains(event.target as Node)) close(false);
    };
    const onAway = () => close(false);
    const wide = matchMedia(WIDE);
    document.addEventListener("keydown", onKeyDown);
    document.addEventListener("pointerdown", onPointerDown);
    window.addEventListener("popstate", onAway);
    wide.addEventListener("change", onAway);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      document.removeEventListener("pointerdown", onPointerDown);
      window.removeEventListener("popstate", onAway);
      wide.removeEventListener("change", onAway);
    };
  }, [open]);

  return (
    <MobileMenuView
      {...props}
      enhanced={enhanced}
      open={open}
      onToggle={() => setOpen((value) => !value)}
      onNavigate={() => setOpen(false)}
      detailsRef={details}
      buttonRef={button}
      panelRef={panel}
    />
  );
}
