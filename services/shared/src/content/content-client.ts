import {
  buildQueryURL,
  Client,
  type ClientConfig,
  type Form,
  NotFoundError,
  type PrismicDocument,
  type Route,
} from "@prismicio/client";
import type { PrismicConfig } from "../config/index.ts";
import { ContentQueryError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { meteredFetch } from "../metrics/metered-fetch.ts";
import { noteContentApiWait } from "../metrics/metrics.ts";
import { bookmarkedId, repositoryForm } from "./api-root-forms.ts";
import { type ContentFetch, createContentFetch, type RateLimitWait } from "./content-fetch.ts";
import type { ContentSchema } from "./content-schema.ts";
import { guardQuery, type QueryParams } from "./query-guard.ts";

type BuildQueryURLArgs = Parameters<Client["buildQueryURL"]>[0];
type GetTagsParams = Parameters<Client["getTags"]>[0];
type GetByIDParams = Parameters<Client["getByID"]>[1];

/**
 * @prismicio/client with Pressroom's rules: the route resolver on every query,
 * queries checked against the models before they are sent, and every request
 * through the content fetch (cache, timeout, bounded 429 retries, status errors).
 */
export class ContentClient extends Client {
  constructor(
    repositoryName: string,
    config: ClientConfig,
    readonly contentFetch: ContentFetch,
    private readonly schema: ContentSchema | undefined,
    private readonly logger: Logger | undefined,
  ) {
    super(repositoryName, config);
  }

  // Every query method goes through buildQueryURL, so one guard covers them all.
  override async buildQueryURL(args: BuildQueryURLArgs = {}): Promise<string> {
    guardQuery(args as QueryParams, this.schema);
    if (args.ref && this.schema?.integrationFields === false) {
      // A query at a given ref needs the API root only for `integrationFieldsRef`, which no model of
      // this site reads; the upstream client would ask the root first, one more round trip before
      // every publish's fetch. The same URL otherwise, built by the upstream function.
      const { signal: _signal, fetchOptions: _fetchOptions, ...params } = args;
      return buildQueryURL(this.documentAPIEndpoint, {
        ...this.defaultParams,
        ...params,
        ref: args.ref,
        routes: params.routes || this.routes,
        brokenRoute: params.brokenRoute || this.brokenRoute,
        accessToken: params.accessToken || this.accessToken,
      });
    }
    return super.buildQueryURL(args);
  }

  /** The master ref as the API says it now: never from a cache (a publish must not render stale content). */
  async fetchMasterRef(signal?: AbortSignal): Promise<string> {
    const url = new URL(this.documentAPIEndpoint);
    if (this.accessToken) url.searchParams.set("access_token", this.accessToken);
    const response = await this.contentFetch(url, { cache: "no-store", ...(signal ? { signal } : {}) });
    const repository = (await response.json()) as { refs?: { ref: string; isMasterRef: boolean }[] };
    const master = repository.refs?.find((ref) => ref.isMasterRef);
    if (!master)
      throw new Error(`The content API at ${this.documentAPIEndpoint} answered without a master ref`);
    return master.ref;
  }

  /** A form of the API root ("everything", "tags"); a missing one is said in the spec's words. */
  async repositoryForm(name: string): Promise<Form> {
    return repositoryForm(await this.getRepository(), name, this.documentAPIEndpoint);
  }

  /**
   * The repository's tags, from the API root's `tags` form only: the root's own `tags` list is
   * deprecated, and the upstream client falls back to it silently, hiding a root without the form.
   */
  override async getTags(params?: GetTagsParams): Promise<string[]> {
    const form = repositoryForm(await this.getRepository(params), "tags", this.documentAPIEndpoint);
    const url = new URL(form.action);
    if (this.accessToken) url.searchParams.set("access_token", this.accessToken);
    const response = await this.contentFetch(url, params?.signal ? { signal: params.signal } : {});
    return (await response.json()) as string[];
  }

  /** The document a bookmark of the API root names; a missing bookmark or document says 'Error retrieving bookmarked id'. */
  async getByBookmark(name: string, params?: GetByIDParams): Promise<PrismicDocument> {
    const id = bookmarkedId(await this.getRepository(), name, this.documentAPIEndpoint);
    try {
      return await this.getByID(id, params);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      throw new ContentQueryError(
        `Error retrieving bookmarked id ${id} (bookmark "${name}"): no such document at this ref`,
        { cause: error },
      );
    }
  }

  /**
   * Checks that the API answers, without failing the process: a server must be
   * able to start while the content service is down and recover once it is back.
   */
  async probe(): Promise<boolean> {
    try {
      const ref = await this.fetchMasterRef();
      this.logger?.info({ endpoint: this.documentAPIEndpoint, masterRef: ref }, "content API reachable");
      // Searches go to the endpoint's /documents/search; a root without the search form is not Prismic's.
      await this.repositoryForm("everything").catch((error: Error) =>
        this.logger?.warn({ endpoint: this.documentAPIEndpoint }, error.message),
      );
      return true;
    } catch (error) {
      this.logger?.warn(
        { endpoint: this.documentAPIEndpoint, err: error },
        "content API unreachable at start; going on and retrying on the next request",
      );
      return false;
    }
  }
}

export interface ContentClientDeps {
  /**
   * The website's route resolver (`website.routes.resolver`): the API fills `url` on documents and
   * links with it. An empty list: documents carry no `url` (tests of the client alone).
   */
  routes: readonly Route[];
  logger?: Logger;
  /** The models' types and fields; queries naming anything else are refused before a request. */
  schema?: ContentSchema;
  /** The network fetch under the content fetch (tests may count calls with it). */
  fetch?: typeof fetch;
  /** Told of every 429 besides the metric (the worker records the wait for `pressroom status`). */
  onRateLimited?: (wait: RateLimitWait) => void;
  /** Aborted at shutdown: requests in flight and 429 waits end at once. */
  signal?: AbortSignal;
}

/** The one factory every process uses to read content. Build it in entry files, never at module top level. */
export function createContentClient(config: PrismicConfig, deps: ContentClientDeps): ContentClient {
  const contentFetch = createContentFetch({
    timeoutMs: config.timeoutMs,
    cacheTtlMs: config.cacheTtlMs,
    cacheMaxEntries: config.cacheMaxEntries,
    rateLimitRetries: config.rateLimitRetries,
    ...(config.rateLimitMaxWaitMs === undefined ? {} : { maxRetryAfterMs: config.rateLimitMaxWaitMs }),
    onRateLimited: (wait) => {
      noteContentApiWait(wait.until);
      deps.onRateLimited?.(wait);
    },
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(deps.logger ? { logger: deps.logger } : {}),
    fetch: meteredFetch(deps.fetch),
  });
  return new ContentClient(
    config.repository,
    {
      documentAPIEndpoint: config.endpoint,
      ...(config.accessToken ? { accessToken: config.accessToken } : {}),
      routes: [...deps.routes],
      fetch: contentFetch,
    },
    contentFetch,
    deps.schema,
    deps.logger,
  );
}
