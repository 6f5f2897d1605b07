/**
 * The properties Google's documentation requires of each structured data type the site emits,
 * checked on parsed JSON-LD. Sources (Google Search Central, "Structured data" pages):
 * - Organization, developers.google.com/search/docs/appearance/structured-data/organization:
 *   "There are no required properties"; recommended: name, url, logo (at least 112×112 px),
 *   sameAs, address (PostalAddress), telephone, email. We hold our own node to what it claims:
 *   a name and an absolute url, and every URL absolute http(s).
 * - LocalBusiness, …/structured-data/local-business: required `address` (PostalAddress) and `name`.
 * - WebSite (site names), …/appearance/site-names: `name` and `url`, on the home page.
 * - WebPage: no Google rich result reads it and schema.org (schema.org/WebPage) requires nothing;
 *   we hold our own node to what it claims: a `name` and an absolute `url`, and `isPartOf` naming
 *   the site's WebSite by `@id` when given.
 * - BreadcrumbList, …/structured-data/breadcrumb: `itemListElement`, each ListItem with `position`
 *   (counting from 1), `name`, and `item` (the page's URL; optional on the last).
 * - FAQPage, …/structured-data/faqpage: `mainEntity`, each Question with `name` and
 *   `acceptedAnswer`, an Answer with `text`.
 * - Offer, …/structured-data/merchant-listing: `price` (a number, or priceSpecification.price)
 *   with `priceCurrency` (ISO 4217); an OfferCatalog (schema.org, no Google rich result) lists
 *   Offers in `itemListElement`, each naming what it offers.
 */
type Node = Record<string, unknown>;

const WEB_URL = /^https?:\/\/[^\s]+$/;
const CURRENCY = /^[A-Z]{3}$/;

/** Every node of a parsed JSON-LD script (`@graph` or a single object). */
export function nodesOf(json: unknown): Node[] {
  const root = json as Node;
  expectContext(root);
  const graph = root["@graph"];
  return Array.isArray(graph) ? (graph as Node[]) : [root];
}

function expectContext(root: Node): void {
  if (root["@context"] !== "https://schema.org") throw new Error(`@context is ${String(root["@context"])}`);
}

const text = (value: unknown) => typeof value === "string" && value.trim().length > 0;
const url = (value: unknown) => typeof value === "string" && WEB_URL.test(value);

/** What is missing or wrong in `node` by the rules above (empty: fine). */
export function problemsOf(node: Node): string[] {
  const type = String(node["@type"]);
  const problems: string[] = [];
  const need = (ok: boolean, what: string) => {
    if (!ok) problems.push(`${type}: ${what}`);
  };
  switch (type) {
    case "Organization":
    case "LocalBusiness": {
      need(text(node.name), "name");
      need(url(node.url), "url (absolute)");
      const logo = node.logo as Node | string | undefined;
      if (logo !== undefined) need(url(typeof logo === "string" ? logo : logo.url), "logo url (absolute)");
      for (const profile of (node.sameAs as unknown[] | undefined) ?? [])
        need(url(profile), `sameAs ${profile}`);
      if (node.telephone !== undefined)
        need(/^\+\d{6,15}$/.test(String(node.telephone)), "telephone (E.164)");
      if (type === "LocalBusiness" || node.address !== undefined) {
        const address = node.address as Node | undefined;
        need(address?.["@type"] === "PostalAddress", "address (PostalAddress)");
        need(text(address?.streetAddress) && text(address?.addressLocality), "address street and locality");
      }
      break;
    }
    case "WebSite":
      need(text(node.name), "name");
      need(url(node.url), "url (absolute)");
      break;
    case "WebPage": {
      need(text(node.name), "name");
      need(url(node.url), "url (absolute)");
      const site = node.isPartOf as Node | undefined;
      if (site !== undefined) need(url(site["@id"]), "isPartOf @id (absolute)");
      break;
    }
    case "BreadcrumbList": {
      const items = node.itemListElement as Node[] | undefined;
      need(Array.isArray(items) && items.length > 0, "itemListElement");
      (items ?? []).forEach((item, i) => {
        need(item["@type"] === "ListItem", `item ${i + 1} is a ListItem`);
        need(item.position === i + 1, `item ${i + 1} position`);
        need(text(item.name), `item ${i + 1} name`);
        if (i < (items ?? []).length - 1 || item.item !== undefined)
          need(url(item.item), `item ${i + 1} item (URL)`);
      });
      break;
    }
    case "FAQPage": {
      const questions = node.mainEntity as Node[] | undefined;
      need(Array.isArray(questions) && questions.length > 0, "mainEntity");
      for (const question of questions ?? []) {
        need(question["@type"] === "Question" && text(question.name), "Question name");
        const answer = question.acceptedAnswer as Node | undefined;
        need(
          answer?.["@type"] === "Answer" && text(answer.text),
          `acceptedAnswer text of "${question.name}"`,
        );
      }
      break;
    }
    case "OfferCatalog": {
      const offers = node.itemListElement as Node[] | undefined;
      need(Array.isArray(offers) && offers.length > 0, "itemListElement");
      if (node.url !== undefined) need(url(node.url), "url (absolute)");
      for (const offer of offers ?? []) {
        need(offer["@type"] === "Offer", "an Offer");
        need(text((offer.itemOffered as Node | undefined)?.name), "itemOffered name");
        if (offer.price !== undefined || offer.priceCurrency !== undefined) {
          need(typeof offer.price === "number" && Number.isFinite(offer.price), `price of ${offer.name}`);
          need(CURRENCY.test(String(offer.priceCurrency)), `priceCurrency of ${offer.name}`);
        }
      }
      break;
    }
    default:
      problems.push(`unexpected @type ${type}`);
  }
  return problems;
}
