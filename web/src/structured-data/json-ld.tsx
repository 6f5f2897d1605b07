import type { ReactNode } from "react";
import type { Graph, Thing } from "schema-dts";
import { jsonForScript } from "../lib/json-script.ts";

/**
 * The page's structured data: one `<script type="application/ld+json">` holding every node in a
 * `@graph`. Text from content goes through `jsonForScript`, which writes `<`, `>` and `&` as
 * `\u003c`…: a `</script>` (or `<!--`) inside a string cannot end or change the element, and the
 * JSON still parses to the same strings. Nothing when there are no nodes.
 */
export function JsonLd({ nodes }: { nodes: readonly (Thing | undefined)[] }): ReactNode {
  const graph = nodes.filter((node): node is Thing => node !== undefined);
  if (graph.length === 0) return null;
  const data: Graph = { "@context": "https://schema.org", "@graph": graph };
  return (
    <script
      type="application/ld+json"
      // biome-ignore lint/security/noDangerouslySetInnerHtml: JSON with < > & escaped by jsonForScript
      dangerouslySetInnerHTML={{ __html: jsonForScript(data) }}
    />
  );
}
