/**
 * Plays Slice Machine's part (browser code, bundled by the test): frames the
 * simulator and drives it with the kit's own SimulatorClient, so the test
 * speaks exactly the protocol Slice Machine speaks.
 */
import { SimulatorClient } from "@prismicio/simulator";

declare global {
  interface Window {
    simulator: { connected: Promise<unknown>; setSliceZone(slices: unknown[]): Promise<unknown> };
  }
}

const iframe = document.createElement("iframe");
iframe.style.width = "1024px";
iframe.style.height = "768px";
const client = new SimulatorClient(iframe, undefined, { connectTimeout: 10_000 });
// connect() waits for the frame's load event, so it is called before the frame starts loading.
const connected = client.connect();
iframe.src = new URLSearchParams(location.search).get("simulator") ?? "";
document.body.append(iframe);

window.simulator = {
  connected,
  // biome-ignore lint/suspicious/noExplicitAny: the test passes slices as plain JSON
  setSliceZone: (slices) => client.setSliceZone(slices as any),
};
