#!/usr/bin/env node
// The `pressroom` command. Sources are TypeScript, run through tsx's loader
// so that there is no build step between an edit and a run.
import { register } from "tsx/esm/api";

// React's development build is several times slower and not what visitors get:
// every process renders as production unless told otherwise.
process.env.NODE_ENV ??= "production";
register();
// Every process collects its heaps before they grow 30 % past what they kept (V8 lets a main thread
// grow up to 4×), a one-shot build 60 %: services/shared/src/heap-growth.ts, docs/operations.md "Memory".
const { BUILD_HEAP_GROWING_PERCENT, limitHeapGrowth } = await import("#heap-growth");
const command = process.argv[2];
limitHeapGrowth(command === "build" || command === "verify" ? BUILD_HEAP_GROWING_PERCENT : undefined);
const { main } = await import("./cli.ts");
process.exitCode = await main(process.argv.slice(2), process.env);
