import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import type { SourceEdit } from "./deployed-copy.ts";

/**
 * A routed custom type with a listing, added to the demo site as a developer would: `blog_post`
 * (uid, title, rich text body) at `/blog/{uid}`, every post listed at `/blog/` and in the sitemap.
 * Only files under web/ and customtypes/ change: the engine, the servers and the CLI take the new
 * type from `#website` alone (tests/integration/deploy.test.ts deploys it).
 *
 * The new files are in blog-deploy/, laid out as in the checkout; `.txt` keeps the TypeScript ones
 * out of this checkout's typecheck and import rules (their imports resolve only where they are
 * copied to). A developer would also run `npm run codegen` (web/prismicio-types.d.ts, which then
 * has `BlogPostDocument`): types are erased when the code runs, so the deploy does without.
 */
export const BLOG_INDEX = "/blog/";

const FILES = new URL("./blog-deploy/", import.meta.url).pathname;

/** The new files: path in the checkout → contents. */
export async function blogFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(FILES, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[relative(FILES, path).replace(/\.txt$/, "")] = await readFile(path, "utf8");
  }
  return files;
}

const edit = (file: string, from: string, to: string): SourceEdit => ({ file, from, to });
/** `to` is `from` with `added` after it. */
const after = (file: string, from: string, added: string): SourceEdit => edit(file, from, from + added);

const ROUTES = "web/src/routes.ts";
const WEBSITE = "web/src/website.ts";
const SOURCE = "web/src/content/content-source.ts";
const SITEMAP = "web/src/handlers/render-sitemap.ts";

/** The edits to existing files, in the order they are applied. */
export const BLOG_EDITS: readonly SourceEdit[] = [
  // The model, read as data (normalize.ts fills a post's absent fields from it).
  after(
    "web/src/content/models.ts",
    'import settings from "#customtypes/settings/index.json" with { type: "json" };',
    '\nimport blogPost from "#customtypes/blog_post/index.json" with { type: "json" };',
  ),
  edit(
    "web/src/content/models.ts",
    "[page, priceList, redirect, settings]",
    "[page, priceList, redirect, settings, blogPost]",
  ),
  // The site's typed reads: a post by uid (recorded `doc:<id>`), all posts (recorded `type:blog_post`).
  edit(
    SOURCE,
    "import type {\n  AllDocumentTypes,",
    "import type {\n  AllDocumentTypes,\n  BlogPostDocument,",
  ),
  edit(
    SOURCE,
    "export type { AllDocumentTypes, PageDocument,",
    "export type { AllDocumentTypes, BlogPostDocument, PageDocument,",
  ),
  edit(
    SOURCE,
    'export type ListedType = "page" | "price_list";',
    'export type ListedType = "page" | "price_list" | "blog_post";',
  ),
  edit(
    SOURCE,
    'T extends "page" ? PageDocument : PriceListDocument;',
    'T extends "page" ? PageDocument : T extends "blog_post" ? BlogPostDocument : PriceListDocument;',
  ),
  after(
    SOURCE,
    "  getPriceListByUID(uid: string): Promise<PriceListDocument | undefined>;",
    "\n  getBlogPostByUID(uid: string): Promise<BlogPostDocument | undefined>;",
  ),
  after(
    "web/src/content/typed-source.ts",
    "    getByID: async (id) => (await source.getByID(id)) as AllDocumentTypes | undefined,",
    '\n    getBlogPostByUID: async (uid) => (await source.getByUID("blog_post", uid)) as BlogPostDocument | undefined,',
  ),
  edit(
    "web/src/content/typed-source.ts",
    "  type AllDocumentTypes,",
    "  type AllDocumentTypes,\n  type BlogPostDocument,",
  ),
  after(
    "web/src/content/recording-source.ts",
    "      getByID: async (id) => record(await source.getByID(id)),",
    "\n      getBlogPostByUID: async (uid) => record(await source.getBlogPostByUID(uid)),",
  ),
  // The URL table: the resolver, and routes.ts agreeing with it.
  after(
    "web/src/content-routes.ts",
    '  { type: "price_list", path: "/price-list/:uid" },',
    '\n  { type: "blog_post", path: "/blog/:uid" },',
  ),
  after(
    ROUTES,
    '  | { kind: "price-list-index" }',
    '\n  | { kind: "blog-post"; uid: string }\n  | { kind: "blog-index" }',
  ),
  after(
    ROUTES,
    'export const PRICE_LIST_INDEX_ROUTE = "/price-list/";',
    `\nexport const BLOG_INDEX_ROUTE = "${BLOG_INDEX}";`,
  ),
  after(
    ROUTES,
    '  if (path === "/price-list" || path === PRICE_LIST_INDEX_ROUTE) return { kind: "price-list-index" };',
    '\n  if (path === "/blog" || path === BLOG_INDEX_ROUTE) return { kind: "blog-index" };',
  ),
  edit(
    ROUTES,
    '  if (segments.length === 3 && segments[1] === "price-list") {',
    '  if (segments.length === 3 && segments[1] === "blog") {\n    const uid = uidFromSegment(segments[2] as string);\n    return uid === undefined ? NOT_FOUND : { kind: "blog-post", uid };\n  }\n  if (segments.length === 3 && segments[1] === "price-list") {',
  ),
  edit(
    ROUTES,
    '    case "price-list-index":\n      return PRICE_LIST_INDEX_ROUTE;',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the template literal is the deployed code's
    '    case "price-list-index":\n      return PRICE_LIST_INDEX_ROUTE;\n    case "blog-post":\n      return `/blog/${uidToSegment(route.uid)}`;\n    case "blog-index":\n      return BLOG_INDEX_ROUTE;',
  ),
  edit(
    ROUTES,
    '    case "price-list-index":\n      return "price-list/index.html";',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the template literal is the deployed code's
    '    case "price-list-index":\n      return "price-list/index.html";\n    case "blog-post":\n      return `blog/${route.uid}/index.html`;\n    case "blog-index":\n      return "blog/index.html";',
  ),
  edit(
    ROUTES,
    '  if (doc.type !== "page" && doc.type !== "price_list") return null;',
    '  if (doc.type !== "page" && doc.type !== "price_list" && doc.type !== "blog_post") return null;',
  ),
  edit(
    ROUTES,
    '  if (doc.type === "page") return uid === HOME_UID',
    '  if (doc.type === "blog_post") return pathForRoute({ kind: "blog-post", uid });\n  if (doc.type === "page") return uid === HOME_UID',
  ),
  edit(
    ROUTES,
    '  if (doc.type !== "page" && doc.type !== "price_list") return undefined;',
    '  if (doc.type !== "page" && doc.type !== "price_list" && doc.type !== "blog_post") return undefined;',
  ),
  // `/blog` is the listing's now: no page may take it.
  after(
    "web/src/uid-rules.ts",
    '  "assets", // immutable script, style and image files',
    '\n  "blog", // the blog\'s listing; posts live under it',
  ),
  // The render of each new route.
  after(
    "web/src/render.ts",
    'import { renderNotFound } from "./handlers/render-not-found.tsx";',
    '\nimport { renderBlogIndex, renderBlogPost } from "./handlers/render-blog.tsx";',
  ),
  after(
    "web/src/render.ts",
    '      case "price-list-index":\n        return await renderPriceListIndex(ctx);',
    '\n      case "blog-post":\n        return await renderBlogPost(ctx, trace, route.uid, pathForRoute(route));\n      case "blog-index":\n        return await renderBlogIndex(ctx);',
  ),
  // What the engine learns of the type: published, read whole by a build (the listing shows posts'
  // titles, and a build hands listings whole documents of the shared types only), routed, listed.
  edit(
    WEBSITE,
    '  types: ["settings", "price_list", "page", "redirect"],',
    '  types: ["settings", "price_list", "page", "redirect", "blog_post"],',
  ),
  edit(WEBSITE, '  shared: ["price_list"],', '  shared: ["price_list", "blog_post"],'),
  after(WEBSITE, "const LISTINGS: readonly string[] = [\n  PRICE_LIST_INDEX_ROUTE,", "\n  BLOG_INDEX_ROUTE,"),
  edit(WEBSITE, "import {\n  ERROR_PAGE_ROUTES,", "import {\n  BLOG_INDEX_ROUTE,\n  ERROR_PAGE_ROUTES,"),
  after(
    WEBSITE,
    '      if (route.kind === "price-list") return { type: "price_list", uid: route.uid };',
    '\n      if (route.kind === "blog-post") return { type: "blog_post", uid: route.uid };',
  ),
  // The sitemap lists the posts (recorded `routes:blog_post`) and the listing.
  after(
    SITEMAP,
    '  { type: "price_list", index: PRICE_LIST_INDEX_ROUTE },',
    '\n  { type: "blog_post", index: BLOG_INDEX_ROUTE },',
  ),
  edit(SITEMAP, "import { PRICE_LIST_INDEX_ROUTE,", "import { BLOG_INDEX_ROUTE, PRICE_LIST_INDEX_ROUTE,"),
];
