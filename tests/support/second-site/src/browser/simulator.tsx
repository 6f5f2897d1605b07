/** The slice simulator's browser entry: Slice Machine sends mocks, the real slice components render them. */
import type { Slice } from "@prismicio/client";
import { SliceZone } from "@prismicio/react";
import { SimulatorManager, StateEventType } from "@prismicio/simulator/kit";
import { type ReactNode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { components } from "../../slices/index.ts";

const manager = new SimulatorManager();

function Simulator(): ReactNode {
  const [slices, setSlices] = useState<Slice[]>(() => (manager.state.slices ?? []) as Slice[]);
  useEffect(() => {
    manager.state.on(StateEventType.Slices, (next) => setSlices(next as Slice[]), "second-site-slices");
    void manager.init();
  }, []);
  return <SliceZone slices={slices} components={components} />;
}

const root = document.getElementById("root") ?? document.body.appendChild(document.createElement("div"));
createRoot(root).render(<Simulator />);
