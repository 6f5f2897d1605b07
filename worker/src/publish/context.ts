import type { PrismicDocument } from "@prismicio/client";
import type { Redis } from "ioredis";
import type { ContentClient } from "#content/content-client.ts";
import type { EdgePurger } from "#edge";
import type { Logger } from "#logger";
import type { SiteStore } from "#storage";
import { website } from "#website";
import type { SiteAssets } from "#website/contract.ts";
import type { RenderPool } from "../build/render-pool.ts";
import type { IndexedDocument, IndexedRoute } from "./dependency-index.ts";
import type { DocumentKey } from "./fetch-documents.ts";
import type { PublishTimings } from "./step-timer.ts";

/**
 * What every stage of a publish reads: the process's dependencies (content client, storage, Redis,
 * the site's assets, the edge, the render queue), the same for every publish the process runs. What
 * belongs to one publish travels apart: the delivery's hints (`PublishJob`) and the run (run.ts).
 */
export interface PublishContext {
  client: ContentClient;
  store: SiteStore;
  redis: Redis;
  queuePrefix: string;
  siteUrl: string;
  assets: SiteAssets;
  logger: Logger;
  /** Above this many routes a publish is split into child jobs (`fanOut`), or else runs a diff build. */
  fanOutThreshold?: number;
  /** Routes per child job (default FAN_OUT_BATCH). */
  fanOutBatch?: number;
  /** Routes whose entries a large fan-out's commit reads at a time (default COMMIT_CHUNK, fan-out-entries.ts; tests lower it). */
  commitChunk?: number;
  /** Documents before the sitemap is divided into parts (default SITEMAP_PART_SIZE, 2,000; tests lower it). */
  sitemapUrlLimit?: number;
  /**
   * Renders batches of routes as child jobs that every worker process shares; resolves when all are
   * done. `keep` is applied to each outcome as it arrives, while the others are still rendering.
   */
  fanOut?: (
    ref: string,
    batches: string[][],
    overlay: [string, IndexedDocument | null][],
    generation: number,
    keep?: (outcome: BatchOutcome) => BatchOutcome,
  ) => Promise<BatchOutcome[]>;
  /**
   * How a child job renders on the worker process's render threads. Absent: child jobs render on
   * the calling thread through the content source.
   */
  threads?: ThreadedRendering;
  /** Render threads of a diff build (`RENDER_THREADS`); undefined: cores − 1. */
  renderThreads?: number;
  /** The edge in front of the site (`CDN_PURGE_URL`), purged after the writes; absent: no purge. */
  edge?: EdgePurger;
  /** Queues the purge job (or brings it forward): it sends what the edge still owes. */
  schedulePurge?: () => Promise<void>;
}

/** What a child job needs to render as the full build does (render-routes.ts, `renderOnThreads`). */
export interface ThreadedRendering {
  /**
   * The full build's pool, created on first use: a child job renders its pages there, from memory,
   * while the main thread fetches and writes other batches.
   */
  pool: () => Promise<RenderPool>;
  /** The frame's and the shared types' documents at a ref, read once per ref by this process (`sharedDocumentsCache`). */
  sharedDocuments: (ref: string) => Promise<PrismicDocument[]>;
  /**
   * The documents `documents` name (type and uid) at `ref` as the API's answers, unparsed (100 a
   * request), for the render threads to parse (`fetchAnswersByUid`).
   */
  pageAnswers: (ref: string, documents: readonly DocumentKey[]) => Promise<ArrayBuffer[]>;
}

/**
 * Routes that list other documents or show the site's frame only (the website's `routes.listings`:
 * index pages, the sitemap and its parts, robots.txt, the error pages): rendered last in a publish,
 * from the index.
 */
export const isListingRoute = (route: string) => website.routes.isListing(route);

/** Routes per child job of a large fan-out. */
export const FAN_OUT_BATCH = 100;

/** What rendering a batch of routes did (JSON: a child job returns it to the publish that waits for it). */
export interface BatchOutcome {
  /** The routes rendered with their entries (a child job's are in Redis instead: fan-out-entries.ts). */
  written: [string, IndexedRoute][];
  /** A child job's: the routes of its batch it did not write (failed, gone), … */
  unwritten?: string[];
  /** … and those it wrote beyond its batch (the sitemap's new parts). */
  also?: string[];
  /** Routes whose document turned out to be gone (rendered as 404): to delete. */
  gone: string[];
  rendered: number;
  changed: number;
  unchanged: number;
  /** Documents' stubs the listings' renders read from the index (what a divided sitemap's part costs). */
  listed?: number;
  /** Writes refused because a newer generation started or wrote the route (generation.ts). */
  refused?: number;
  /** Routes whose render threw (not a transient content error): they keep their last good page. */
  failed?: { route: string; documentId?: string; error: string }[];
  /** The job's publish was superseded before it started: nothing was rendered. */
  superseded?: boolean;
}

export interface PublishSummary {
  ref: string;
  ids: number;
  rendered: number;
  written: number;
  unchanged: number;
  deleted: number;
  mode: "incremental" | "diff-build" | "nothing-pending";
  /** Routes whose render failed and kept their last good page (route-failures.ts). */
  failed?: number;
  /** Child jobs a large fan-out was split into (0: rendered by the publishing job itself). */
  batches?: number;
  /** Documents' stubs the listings' renders read from the index: a divided sitemap's part, not the site. */
  listed?: number;
  durationMs: number;
  /** When the publish started (epoch ms, after the lock), and where its time went (ms per step). */
  startedAt?: number;
  timings?: PublishTimings;
  /**
   * The edge: when the purge of the changed documents' own routes was acknowledged
   * (epoch ms): the publish is live. `deferred`: a purge it needed was not acknowledged; the
   * deliveries it took are made live by the purge that is (purge-stage.ts).
   */
  edge?: {
    liveAt?: number;
    /** When every purge of the publish was acknowledged (epoch ms): no route it changed is stale at the edge. */
    settledAt?: number;
    deferred: boolean;
    purged: number;
    everything: boolean;
  };
}
