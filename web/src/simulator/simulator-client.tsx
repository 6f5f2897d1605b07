/**
 * The slice simulator's browser entry (bundled by the preview server; it runs
 * in the browser, not on the server). It lives here rather than in
 * src/browser/ because it renders the real slice components, which the
 * browser folder may not import; the components are browser-safe (no node:*).
 */
import type { Slice } from "@prismicio/client";
import { type SliceComponentProps, SliceZone } from "@prismicio/react";
import { SimulatorManager, StateEventType } from "@prismicio/simulator/kit";
import { type ComponentType, type ReactNode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { components, MissingSlice } from "../../slices/index.ts";
import { normalizeSlices } from "../content/normalize.ts";
import type { SliceContext } from "../slice-context.ts";

// One manager per page, created before rendering so it already listens when Slice Machine says hello.
const manager = new SimulatorManager();

/** Price lists are loaded by the page render; in isolation a price_list_table shows its empty state. */
const context: SliceContext = { mode: "preview", priceLists: new Map(), priorityIndex: 0 };

type AnyProps = SliceComponentProps<Slice, SliceContext>;

/**
 * One element per slice, whatever the component renders (an island is two
 * nodes), so the kit's `scrollToSlice` and active-slice lookup find slice N
 * at child N of the slice zone.
 */
function wrap(Component: ComponentType<AnyProps>): ComponentType<AnyProps> {
  return function SimulatedSlice(props: AnyProps): ReactNode {
    return (
      <div className="simulator-slice" data-slice-type={props.slice.slice_type}>
        <Component {...props} />
      </div>
    );
  };
}

const wrapped: Record<string, ComponentType<AnyProps>> = Object.create(null);
for (const [type, component] of Object.entries(components))
  wrapped[type] = wrap(component as ComponentType<AnyProps>);
// SliceZone types its fallback loosely (any slice shape, unknown context).
// biome-ignore lint/suspicious/noExplicitAny: matches SliceZone's own defaultComponent type
const fallback = wrap(MissingSlice as unknown as ComponentType<AnyProps>) as ComponentType<any>;

/**
 * Mocks of a model Slice Machine just changed may lack fields or hold a field's old kind, as
 * documents do: normalised alike (normalize.ts never throws).
 */
function simulated(slices: unknown): Slice[] {
  return normalizeSlices(slices) as unknown as Slice[];
}

function Simulator(): ReactNode {
  const [slices, setSlices] = useState<Slice[]>(() => simulated(manager.state.slices));
  const [message, setMessage] = useState(() => manager.state.message);
  useEffect(() => {
    manager.state.on(StateEventType.Slices, (next) => setSlices(simulated(next)), "pressroom-slices");
    manager.state.on(StateEventType.Message, setMessage, "pressroom-message");
    void manager.init();
    return () => {
      manager.state.off(StateEventType.Slices, "pressroom-slices");
      manager.state.off(StateEventType.Message, "pressroom-message");
    };
  }, []);
  if (message) {
    // The kit's own message (HTML it ships), e.g. "accessed directly".
    // biome-ignore lint/security/noDangerouslySetInnerHtml: static markup from @prismicio/simulator
    return <div className="slice-simulator__message" dangerouslySetInnerHTML={{ __html: message }} />;
  }
  return (
    // Links and forms inside a slice must not navigate the simulator away from Slice Machine.
    <div
      className="slice-simulator--root"
      onClickCapture={(event) => {
        if ((event.target as Element).closest("a")) event.preventDefault();
      }}
      onSubmitCapture={(event) => event.preventDefault()}
    >
      <main id="main" data-slice-zone="">
        <SliceZone slices={slices} components={wrapped} defaultComponent={fallback} context={context} />
      </main>
    </div>
  );
}

const mount = document.querySelector(".slice-simulator");
if (mount) createRoot(mount).render(<Simulator />);
