import { fileURLToPath } from "node:url";
import type { CustomTypeModel, CustomTypeModelField, PrismicDocument } from "@prismicio/client";
import * as prismicMock from "@prismicio/mock";
import { ASSET_BASE_PLACEHOLDER, loadDemoDocuments } from "./demo.ts";
import { loadModels, type Models } from "./models.ts";
import { validateDocument } from "./validate.ts";

export type GenerateOptions = {
  /** Number of `page` documents, the `home` page included. */
  pages: number;
  priceLists: number;
  seed: number;
  /** Defaults to the Slice Machine files of this repository. */
  models?: Models;
  /** The settings document to copy; defaults to the demo's. Its document links are re-pointed. */
  settings?: PrismicDocument;
};

type Obj = Record<string, unknown>;
type Fields = Record<string, CustomTypeModelField>;
/** `ordinal`: the document's number among those of its type (home is page 0). */
type Target = { id: string; type: string; uid: string; ordinal: number };
type Fixer = {
  random: () => number;
  /** A document for a link allowed to reach `types` (any page or price list when undefined). */
  pick: (types: string[] | undefined, originalType: string) => Target | undefined;
};

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FIRST_PUBLICATION = Date.UTC(2026, 2, 2, 9, 14);
const IMAGES = [
  "hero-studio",
  "work-harbor-coffee",
  "work-fernline-bikes",
  "work-alder-clinic",
  "work-tidewater-books",
  "about-team",
  "about-workshop",
  "about-desk",
  "services-hero",
];
const ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** The uid of generated page `ordinal` (1 or more; 0 is `home`) in a repository of `pages` pages. */
export function generatedPageUid(ordinal: number, pages: number): string {
  return ordinal === 0 ? "home" : `page-${String(ordinal).padStart(Math.max(5, String(pages).length), "0")}`;
}

/**
 * A large repository for load and "incremental ≡ full" tests: `@prismicio/mock` fills every field from the
 * models, then the result is made to look like what the Document API returns (ids, uids, dates, local
 * images, links between the generated documents). Same options, same documents, byte for byte. A
 * document's fields and slices come from the seed, its type and its ordinal, not from the
 * repository's size: page 12 of a repository of 1,000 pages has the slices and text of page 12 of one
 * of 100,000 (its links and images point elsewhere), so that benchmarks at two sizes edit the same
 * pages.
 */
export function generateRepository(options: GenerateOptions): PrismicDocument[] {
  const { pages, priceLists, seed } = options;
  if (!Number.isInteger(pages) || pages < 1)
    throw new Error("pages must be a whole number ≥ 1 (home is one)");
  if (!Number.isInteger(priceLists) || priceLists < 0)
    throw new Error("priceLists must be a whole number ≥ 0");
  const models = options.models ?? loadModels(REPO_ROOT);
  const settingsSource = options.settings ?? loadDemoDocuments().find((doc) => doc.type === "settings");
  if (!settingsSource) throw new Error("no settings document to copy");
  const model = (id: string): CustomTypeModel => {
    const found = models.customTypes.find((ct) => ct.id === id);
    if (!found) throw new Error(`the models have no "${id}" custom type`);
    return found;
  };

  const random = mulberry32(hashString(`pressroom:${seed}`));
  const usedIds = new Set<string>([settingsSource.id]);
  const newId = (): string => {
    for (;;) {
      let id = "Z";
      for (let i = 0; i < 15; i++) id += ID_CHARS[Math.floor(random() * ID_CHARS.length)];
      if (!usedIds.has(id)) {
        usedIds.add(id);
        return id;
      }
    }
  };
  const listWidth = Math.max(3, String(priceLists).length);
  const targets: Target[] = [
    ...Array.from({ length: pages }, (_, i) => ({
      id: newId(),
      type: "page",
      uid: generatedPageUid(i, pages),
      ordinal: i,
    })),
    ...Array.from({ length: priceLists }, (_, i) => ({
      id: newId(),
      type: "price_list",
      uid: `price-list-${String(i + 1).padStart(listWidth, "0")}`,
      ordinal: i + 1,
    })),
  ];
  const pools = new Map<string, Target[]>();
  const byType = (types: string[] | undefined): Target[] => {
    const key = types?.join() ?? "";
    let pool = pools.get(key);
    if (!pool) {
      pool = targets.filter((t) => (types ? types.includes(t.type) : true));
      pools.set(key, pool);
    }
    return pool;
  };
  const randomFixer: Fixer = {
    random,
    pick: (types) => {
      const pool = byType(types);
      return pool[Math.floor(random() * pool.length)];
    },
  };

  const docs: PrismicDocument[] = [];
  // Settings links walk the generated documents in order (page-00001, page-00002, …; home has its logo link).
  const cursor = new Map<string, number>();
  const settings = structuredClone(settingsSource) as PrismicDocument;
  fixFields(settings.data as Obj, dataFields(model("settings")), models, {
    random,
    // Keep each link's kind: a price list in the demo's header stays a price list.
    pick: (types, originalType) => {
      const pool = byType(types ?? [originalType]).filter((t) => t.uid !== "home");
      const key = originalType;
      const index = cursor.get(key) ?? 0;
      cursor.set(key, index + 1);
      return pool[index % Math.max(pool.length, 1)];
    },
  });
  docs.push(settings);

  targets.forEach((target, index) => {
    const ct = model(target.type);
    const mockSeed = `${seed}:${target.type}:${target.ordinal}`;
    const mocked = prismicMock.value.document({
      seed: mockSeed,
      model: ct,
      withURL: false,
      // The nested seed only satisfies the config type: the document's own faker is passed down and wins.
      configs: { sliceZone: { seed: mockSeed, sharedSliceModels: models.slices } },
    }) as unknown as PrismicDocument;
    const data = mocked.data as Obj;
    fixFields(data, dataFields(ct), models, randomFixer);
    const published = formatDate(FIRST_PUBLICATION + index * 60_000);
    docs.push({
      id: target.id,
      uid: target.uid,
      url: null,
      type: target.type,
      href: "",
      tags: [],
      first_publication_date: published,
      last_publication_date: published,
      slugs: [target.uid],
      linked_documents: [],
      lang: "en-us",
      alternate_languages: [],
      data,
    } as PrismicDocument);
  });

  for (const doc of docs) {
    const issues = validateDocument(doc, models);
    if (issues.length > 0) {
      const list = issues.slice(0, 5).map((i) => `${i.path}: ${i.message}`);
      throw new Error(
        `generated document ${doc.id} (${doc.type}/${doc.uid}) is invalid:\n${list.join("\n")}`,
      );
    }
  }
  return docs;
}

const dataFields = (model: CustomTypeModel): Fields =>
  Object.fromEntries(
    Object.values(model.json)
      .flatMap((tab) => Object.entries(tab))
      .filter(([, field]) => field.type !== "UID"),
  );

function fixFields(value: Obj, fields: Fields, models: Models, fx: Fixer, owner = ""): void {
  for (const [key, field] of Object.entries(fields)) {
    value[key] = fixField(value[key], field, models, fx, `${owner}.${key}`);
  }
}

function fixField(
  value: unknown,
  field: CustomTypeModelField,
  models: Models,
  fx: Fixer,
  key: string,
): unknown {
  const config = (field.config ?? {}) as Obj;
  switch (field.type) {
    case "Image":
      return fixImage(value, fx);
    case "Link":
      return fixLink(value, config, fx);
    case "StructuredText":
      return fixRichText(value, fx);
    case "Text":
      // Text holding a code the site parses cannot stay lorem ipsum.
      return key === "contact_form.default_country" && value !== null ? "US" : value;
    case "Group": {
      const fields = (config.fields ?? {}) as Fields;
      for (const item of value as Obj[]) fixFields(item, fields, models, fx);
      return value;
    }
    case "Slices":
      for (const slice of value as Obj[]) {
        const type = String(slice.slice_type);
        const variation = models.slices
          .find((s) => s.id === type)
          ?.variations.find((v) => v.id === slice.variation);
        slice.id = `${type}$${uuid(fx.random)}`;
        slice.version = "initial";
        fixFields(slice.primary as Obj, (variation?.primary ?? {}) as Fields, models, fx, type);
        for (const item of slice.items as Obj[])
          fixFields(item, (variation?.items ?? {}) as Fields, models, fx);
      }
      return value;
    default:
      return value;
  }
}

function fixImage(value: unknown, fx: Fixer): unknown {
  const image = value as Obj | null;
  if (!image || typeof image.url !== "string") return {};
  const name = IMAGES[Math.floor(fx.random() * IMAGES.length)];
  return {
    dimensions: { width: 1600, height: 900 },
    alt: typeof image.alt === "string" ? image.alt : null,
    copyright: null,
    url: `${ASSET_BASE_PLACEHOLDER}/images/${name}.jpg`,
    id: image.id,
    edit: { x: 0, y: 0, zoom: 1, background: "transparent" },
  };
}

/** Document links from the mock point at invented documents; re-point them at generated ones. */
function fixLink(value: unknown, config: Obj, fx: Fixer): unknown {
  const link = value as Obj;
  if (link.link_type !== "Document" || link.id === undefined) return link;
  const customtypes = (config.customtypes as (string | { id: string })[] | undefined)?.map((ct) =>
    typeof ct === "string" ? ct : ct.id,
  );
  const target = fx.pick(customtypes, String(link.type));
  if (!target) return { link_type: "Any" };
  return {
    link_type: "Document",
    id: target.id,
    type: target.type,
    tags: [],
    lang: "en-us",
    slug: target.uid,
    uid: target.uid,
    isBroken: false,
  };
}

function fixRichText(value: unknown, fx: Fixer): unknown {
  for (const block of value as Obj[]) {
    for (const span of (block.spans ?? []) as Obj[]) {
      if (span.type === "hyperlink") span.data = fixLink(span.data, {}, fx);
    }
  }
  return value;
}

function uuid(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

const formatDate = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "+0000");

function hashString(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A small seeded PRNG: the same seed gives the same sequence on every machine. */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
