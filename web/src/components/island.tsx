import type { ReactNode } from "react";
import { jsonForScript } from "../lib/json-script.ts";

export interface IslandProps {
  /** The island's chunk name (carousel, mobile-menu, cookie-notice, contact-form). */
  name: string;
  /** Deterministic and unique on the page (derived from the slice id), never random. */
  id: string;
  /** Serialized next to the markup for the browser bundle to hydrate from. */
  props?: unknown;
  className?: string;
  children: ReactNode;
}

/**
 * Marks server HTML that the browser bundle makes interactive. The server
 * markup works on its own; the props script sits beside (not inside) the
 * island root so hydrating the root leaves it alone.
 */
export function Island({ name, id, props, className, children }: IslandProps): ReactNode {
  return (
    <>
      <div data-island={name} data-island-id={id} className={className}>
        {children}
      </div>
      {props === undefined ? null : (
        <script
          type="application/json"
          data-island-props={id}
          // biome-ignore lint/security/noDangerouslySetInnerHtml: JSON with < > & escaped by jsonForScript
          dangerouslySetInnerHTML={{ __html: jsonForScript(props) }}
        />
      )}
    </>
  );
}
