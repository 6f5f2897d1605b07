// Entry of a render thread. Threads do not inherit the main thread's module
// loader, so this plain JavaScript file registers tsx's before loading the
// TypeScript sources (as bin/pressroom.js does for the main thread).
import { register } from "tsx/esm/api";

register();
await import("./render-thread.ts");
