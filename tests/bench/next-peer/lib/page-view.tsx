import { asText, type Client, type PrismicDocument } from "@prismicio/client";
import { SliceZone } from "@prismicio/react";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { createClient, embeddedPriceLists, pageByUid } from "./prismic";
import { SiteChrome } from "./site-chrome";
import { components } from "./slices";

/**
 * A page as Pressroom renders it (web/src/pages/page-view.tsx): the settings' chrome around the
 * page's title and slices, with the price lists its tables embed. One render reads the page, the
 * settings and the embedded price lists, as Pressroom's does.
 */
export async function PageView({ uid }: { uid: string }): Promise<ReactNode> {
  const client = createClient();
  const [page, settings] = await Promise.all([pageByUid(client, uid), client.getSingle("settings")]);
  if (!page) notFound();
  const priceLists = await embeddedPriceLists(client, page);
  return (
    <SiteChrome settings={settings}>
      <h1>{asText(page.data.title) || page.data.meta_title || uid}</h1>
      <SliceZone slices={page.data.slices ?? []} components={components} context={{ priceLists }} />
    </SiteChrome>
  );
}

/** `<title>`, description and the share image, as Pressroom's document shell has them. */
export async function pageMetadata(uid: string): Promise<Metadata> {
  const client: Client = createClient();
  const [page, settings] = await Promise.all([pageByUid(client, uid), client.getSingle("settings")]);
  if (!page) return {};
  const title = page.data.meta_title || asText(page.data.title) || uid;
  const brand = (settings as PrismicDocument).data.brand_name ?? "";
  return {
    title: brand ? `${title} · ${brand}` : title,
    description: page.data.meta_description || undefined,
    openGraph: page.data.meta_image?.url ? { images: [{ url: page.data.meta_image.url }] } : {},
  };
}
