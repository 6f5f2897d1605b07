/**
 * Renders the second site's routes with React's renderToStaticMarkup: plain HTML, no script.
 */
import { asText, type PrismicDocument } from "@prismicio/client";
import { SliceZone } from "@prismicio/react";
import type { ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import type { RenderContext, RenderResult } from "#website/contract.ts";
import { components } from "../slices/index.ts";
import { recording } from "./recording.ts";
import { BLOG, CONFIG_TYPE, HOME, NOT_FOUND, POST_TYPE, parse, ROBOTS, routeOf, SITEMAP } from "./routes.ts";

const HTML = "text/html; charset=utf-8";

export class SecondSiteRenderError extends Error {
  constructor(
    readonly route: string,
    readonly documentId: string | undefined,
    cause: unknown,
  ) {
    super(`rendering ${route} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "RenderError";
  }
}

export async function render(path: string, ctx: RenderContext): Promise<RenderResult> {
  const parsed = parse(path);
  try {
    if (parsed.kind === "post") return await renderPost(ctx, parsed.uid);
    if (parsed.kind === "error") return await renderError(ctx, parsed.route);
    if (parsed.kind === "not-found") return await renderError(ctx, NOT_FOUND);
    if (parsed.route === SITEMAP) return await renderSitemap(ctx);
    if (parsed.route === ROBOTS) return renderRobots(ctx);
    return await renderListing(ctx, parsed.route === HOME ? 3 : undefined, parsed.route);
  } catch (error) {
    throw new SecondSiteRenderError(path, undefined, error);
  }
}

type Config = { site_name?: string | null; footer_text?: string | null };

function Layout(props: {
  config: Config;
  title: string;
  ctx: RenderContext;
  children: ReactNode;
}): ReactNode {
  const name = props.config.site_name || "Blog";
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <title>{`${props.title} · ${name}`}</title>
        <link rel="stylesheet" href={props.ctx.assets.css} />
        {props.ctx.mode === "preview" ? <meta name="robots" content="noindex" /> : null}
      </head>
      <body>
        <header>
          <a href="/">{name}</a> <a href={BLOG}>Blog</a>
        </header>
        <main>{props.children}</main>
        <footer>{props.config.footer_text}</footer>
      </body>
    </html>
  );
}

const page = (status: RenderResult["status"], element: ReactNode, dependencies: string[]): RenderResult => ({
  status,
  html: `<!doctype html>${renderToStaticMarkup(element)}`,
  contentType: HTML,
  dependencies,
});

async function renderPost(ctx: RenderContext, uid: string): Promise<RenderResult> {
  const read = recording(ctx.source);
  const [config, post] = await Promise.all([
    read.source.getSingle(CONFIG_TYPE),
    read.source.getByUID(POST_TYPE, uid),
  ]);
  if (!post) return renderError(ctx, NOT_FOUND);
  const title = asText(post.data.title) || uid;
  return {
    ...page(
      200,
      <Layout config={(config?.data ?? {}) as Config} title={title} ctx={ctx}>
        <article>
          <h1>{title}</h1>
          {post.data.published_on ? (
            <time dateTime={post.data.published_on}>{post.data.published_on}</time>
          ) : null}
          <SliceZone slices={post.data.slices ?? []} components={components} />
        </article>
      </Layout>,
      read.dependencies(),
    ),
    documentId: post.id,
  };
}

/** Newest first by the post's date, then by uid: the same order whatever order the API answers in. */
function newestFirst(posts: readonly PrismicDocument[]): PrismicDocument[] {
  const date = (doc: PrismicDocument) => String(doc.data.published_on ?? "");
  return posts
    .filter((doc) => routeOf(doc) !== null)
    .sort((a, b) => date(b).localeCompare(date(a)) || String(a.uid).localeCompare(String(b.uid)));
}

async function renderListing(
  ctx: RenderContext,
  limit: number | undefined,
  route: string,
): Promise<RenderResult> {
  const read = recording(ctx.source);
  const [config, posts] = await Promise.all([
    read.source.getSingle(CONFIG_TYPE),
    read.source.getAllByType(POST_TYPE),
  ]);
  const shown = newestFirst([...posts]).slice(0, limit);
  return page(
    200,
    <Layout config={(config?.data ?? {}) as Config} title={route === HOME ? "Home" : "All posts"} ctx={ctx}>
      <h1>{route === HOME ? "Latest posts" : "All posts"}</h1>
      <ul className="posts">
        {shown.map((post) => (
          <li key={post.id}>
            <a href={routeOf(post) as string}>{asText(post.data.title) || post.uid}</a>
          </li>
        ))}
      </ul>
    </Layout>,
    read.dependencies(),
  );
}

const ERROR_TEXT: Record<string, [RenderResult["status"], string]> = {
  "404": [404, "This page does not exist"],
  "500": [500, "Something went wrong"],
  "503": [503, "Back in a moment"],
};

async function renderError(ctx: RenderContext, route: string): Promise<RenderResult> {
  const read = recording(ctx.source);
  const config = await read.source.getSingle(CONFIG_TYPE);
  const [status, text] = ERROR_TEXT[route] ?? [404, "This page does not exist"];
  return page(
    status,
    <Layout config={(config?.data ?? {}) as Config} title={text} ctx={ctx}>
      <h1>{text}</h1>
    </Layout>,
    read.dependencies(),
  );
}

const xmlEscape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Every post's route with its last publication day; depends on `routes:post` only. */
async function renderSitemap(ctx: RenderContext): Promise<RenderResult> {
  const read = recording(ctx.source, { routesOnly: true });
  const posts = [...(await read.source.getAllByType(POST_TYPE))];
  const base = ctx.siteUrl.replace(/\/+$/, "");
  const entries = [HOME, BLOG, ...posts.flatMap((doc) => routeOf(doc) ?? [])].sort();
  const day = new Map(posts.map((doc) => [routeOf(doc), lastmod(doc)]));
  const urls = entries.map((route) => {
    const date = day.get(route);
    return `<url><loc>${xmlEscape(base + route)}</loc>${date ? `<lastmod>${date}</lastmod>` : ""}</url>`;
  });
  return {
    status: 200,
    html: `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join("")}</urlset>\n`,
    contentType: "application/xml; charset=utf-8",
    dependencies: read.dependencies(),
  };
}

/** The UTC day of a document's last publication: what the sitemap shows (`2026-03-09`). */
export function lastmod(doc: PrismicDocument): string | undefined {
  const at = doc.last_publication_date;
  if (!at) return undefined;
  const parsed = new Date(at.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"));
  return Number.isNaN(parsed.getTime()) ? undefined : parsed.toISOString().slice(0, 10);
}

function renderRobots(ctx: RenderContext): RenderResult {
  const base = ctx.siteUrl.replace(/\/+$/, "");
  return {
    status: 200,
    html:
      ctx.mode === "preview"
        ? "User-agent: *\nDisallow: /\n"
        : `User-agent: *\nAllow: /\n\nSitemap: ${base}${SITEMAP}\n`,
    contentType: "text/plain; charset=utf-8",
    dependencies: [],
  };
}
