import { type ComponentType, type ReactNode, useContext } from "react";
import { renderToString } from "react-dom/server";
import { jsonForScript } from "../lib/json-script.ts";
import { FragmentCacheContext } from "./shared-markup.tsx";

export interface IslandProps<P extends object> {
  /**
   * The island's name: its chunk is `web/src/browser/islands/<name>.client.tsx` (none with
   * `propsScript={false}`).
   */
  name: string;
  /** Deterministic and unique on the page (derived from the slice id), never random. */
  id: string;
  /**
   * The island's view, rendered here on the server with `props`; the browser
   * hydrates the same markup with the same props, so the view must be a pure
   * function of them (no `@prismicio/client`, nothing server-side).
   */
  component: ComponentType<P>;
  /**
   * Serialized next to the markup for the browser to hydrate from. A function is called only when
   * the island is rendered, not when its markup comes from the fragment cache (`shared`).
   */
  props: P | (() => P);
  /**
   * false: no props script, for an island that a plain module of the entry makes live from its
   * markup alone, never React (the cookie notice: web/src/browser/cookie-notice.ts).
   */
  propsScript?: boolean;
  /**
   * What the props script carries (default: `props`). An island whose chunk finds part of its props
   * in the markup beside it leaves that part out, so a page does not carry it twice: the contact
   * form's ~245 countries are in its selector's options, and its chunk reads them from there.
   */
  serialize?: (props: P) => object;
  className?: string;
  /**
   * The island is the same on every page with this source and key (shared-markup.tsx): with a
   * fragment cache in context, its markup and props are rendered once and kept. The key must name
   * everything the props depend on besides the source.
   */
  shared?: { source: object; key: string };
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
  propsScript = true,
  serialize,
  className,
  shared,
}: IslandProps<P>): ReactNode {
  const cache = useContext(FragmentCacheContext);
  let resolved: P | undefined;
  const propsNow = (): P => {
    resolved ??= typeof props === "function" ? (props as () => P)() : props;
    return resolved;
  };
  const scriptJson = () => jsonForScript(serialize ? serialize(propsNow()) : propsNow());
  if (cache && shared) {
    const key = `island:${id}:${shared.key}`;
    const view = cache.markup(shared.source, `${key}:view`, () => renderToString(<View {...propsNow()} />));
    const json = propsScript ? cache.markup(shared.source, `${key}:props`, scriptJson) : undefined;
    if (view !== undefined && (json !== undefined || !propsScript))
      return (
        <>
          <div
            data-island={name}
            data-island-id={id}
            className={className}
            // biome-ignore lint/security/noDangerouslySetInnerHtml: the island's view as React rendered it for these props
            dangerouslySetInnerHTML={{ __html: view }}
          />
          {json === undefined ? null : (
            <script
              type="application/json"
              data-island-props={id}
              // biome-ignore lint/security/noDangerouslySetInnerHtml: JSON with < > & escaped by jsonForScript
              dangerouslySetInnerHTML={{ __html: json }}
            />
          )}
        </>
      );
  }
  return (
    <>
      <div data-island={name} data-island-id={id} className={className}>
        <View {...propsNow()} />
      </div>
      {propsScript ? (
        <script
          type="application/json"
          data-island-props={id}
          // biome-ignore lint/security/noDangerouslySetInnerHtml: JSON with < > & escaped by jsonForScript
          dangerouslySetInnerHTML={{ __html: scriptJson() }}
        />
      ) : null}
    </>
  );
}
