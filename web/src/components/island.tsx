import type { ComponentType, ReactNode } from "react";
import { jsonForScript } from "../lib/json-script.ts";

export interface IslandProps<P extends object> {
  /** The island's name: its chunk is `web/src/browser/islands/<name>.client.tsx`. */
  name: string;
  /** Deterministic and unique on the page (derived from the slice id), never random. */
  id: string;
  /**
   * The island's view, rendered here on the server with `props`; the browser
   * hydrates the same markup with the same props, so the view must be a pure
   * function of them (no `@prismicio/client`, nothing server-side).
   */
  component: ComponentType<P>;
  /** Serialized next to the markup for the browser to hydrate from. */
  props: P;
  className?: string;
}

/**
 * Marks server HTML that the browser bundle makes interactive. The server
 * markup works on its own; the props script sits beside (not inside) the
 * island root so hydrating the root leaves it alone.
 */
export function Island<P extends object>({
  name,
  id,
  component: View,
  props,
  className,
}: IslandProps<P>): ReactNode {
  return (
    <>
      <div data-island={name} data-island-id={id} className={className}>
        <View {...props} />
      </div>
      <script
        type="application/json"
        data-island-props={id}
        // biome-ignore lint/security/noDangerouslySetInnerHtml: JSON with < > & escaped by jsonForScript
        dangerouslySetInnerHTML={{ __html: jsonForScript(props) }}
      />
    </>
  );
}
