import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as prismic from "@prismicio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CUSTOM_TYPES_DIR, sliceLibraries } from "#local-prismic/models.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { ABOUT_ID, demoDoc } from "../support/preview-fixture.ts";
import { tempDir } from "../support/temp-dir.ts";

/**
 * Slice Machine changes the models while the local content service runs: a new slice folder, a new
 * choice in a custom type's slice zone, a new custom type. The next edit and the API root use them,
 * without a restart (docs/local-content-service.md, "Models").
 */
const ROOT = new URL("../../", import.meta.url).pathname;
/** The demo's one slice library (slicemachine.config.json). */
const [SLICE_LIBRARY_DIR] = sliceLibraries(ROOT) as [string];

const QUOTE_MODEL = {
  id: "quote",
  type: "SharedSlice",
  name: "Quote",
  description: "A customer's words",
  variations: [
    {
      id: "default",
      name: "Default",
      docURL: "...",
      version: "initial",
      description: "The quote and who said it",
      imageUrl: "",
      primary: {
        quote: { type: "StructuredText", config: { label: "Quote", single: "paragraph" } },
        author: { type: "Text", config: { label: "Author" } },
      },
      items: {},
    },
  ],
};

const TESTIMONIAL_TYPE = {
  id: "testimonial",
  label: "Testimonial",
  format: "custom",
  repeatable: true,
  status: true,
  json: { Main: { author: { type: "Text", config: { label: "Author" } } } },
};

const quoteSlice = {
  slice_type: "quote",
  slice_label: null,
  id: "quote$5b0c7a52-0d5e-4c53-9d7e-2f4a1c9e8b10",
  variation: "default",
  version: "initial",
  primary: {
    quote: [{ type: "paragraph", text: "They made our site ours again.", spans: [] }],
    author: "Ada Example",
  },
  items: [],
};

let models: Awaited<ReturnType<typeof tempDir>>;
let service: LocalPrismic;

/** A copy of the repository's model files only, which the test may change. */
async function copyModels(to: string): Promise<void> {
  await cp(join(ROOT, CUSTOM_TYPES_DIR), join(to, CUSTOM_TYPES_DIR), { recursive: true });
  await cp(join(ROOT, SLICE_LIBRARY_DIR), join(to, SLICE_LIBRARY_DIR), {
    recursive: true,
    filter: (source) => !/\.(tsx?|css)$/.test(source),
  });
}

const publish = async (edit: unknown) => {
  const response = await fetch(`${service.url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(edit),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  models = await tempDir("models");
  await copyModels(models.path);
  service = await startLocalPrismic({ modelsDir: models.path });
});

afterAll(async () => {
  await service?.stop();
  await models?.remove();
});

describe("local content service: models changed while it runs", () => {
  it("accepts a page using a slice added to the models since it started, and serves it", async () => {
    const about = demoDoc(ABOUT_ID);
    const slices = about.data.slices as unknown[];
    const edit = { upsert: [{ ...about, data: { ...about.data, slices: [...slices, quoteSlice] } }] };
    // The slice is not in the models yet: refused, as Prismic's editor would not offer it.
    const early = await publish(edit);
    expect(early.status).toBe(422);
    expect(JSON.stringify(early.body)).toContain("quote");

    // What Slice Machine writes: the slice's folder, and the choice in the page's slice zone.
    await mkdir(join(models.path, SLICE_LIBRARY_DIR, "Quote"));
    await writeFile(join(models.path, SLICE_LIBRARY_DIR, "Quote", "model.json"), JSON.stringify(QUOTE_MODEL));
    const pageFile = join(models.path, CUSTOM_TYPES_DIR, "page", "index.json");
    const page = JSON.parse(await readFile(pageFile, "utf8"));
    page.json.Main.slices.config.choices.quote = { type: "SharedSlice" };
    await writeFile(pageFile, JSON.stringify(page, null, 2));

    const published = await publish(edit);
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const client = prismic.createClient("demo", { documentAPIEndpoint: service.endpoint });
    const served = (await client.getByID(ABOUT_ID)) as prismic.PrismicDocument;
    expect((served.data.slices as { slice_type: string }[]).at(-1)).toMatchObject({
      slice_type: "quote",
      primary: { author: "Ada Example" },
    });
  });

  it("lists a custom type added since it started in the API root, and accepts its documents", async () => {
    const root = async () =>
      (await (await fetch(service.endpoint)).json()) as { types: Record<string, string> };
    expect((await root()).types.testimonial).toBeUndefined();
    await mkdir(join(models.path, CUSTOM_TYPES_DIR, "testimonial"));
    await writeFile(
      join(models.path, CUSTOM_TYPES_DIR, "testimonial", "index.json"),
      JSON.stringify(TESTIMONIAL_TYPE),
    );
    expect((await root()).types.testimonial).toBe("Testimonial");
    const doc = {
      id: "ZTestimonial0001",
      uid: null,
      type: "testimonial",
      lang: "en-us",
      tags: [],
      data: { author: "Grace Example" },
    };
    const published = await publish({ upsert: [doc] });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
  });

  it("keeps the last good models while a model file cannot be read, and takes it once it can", async () => {
    const file = join(models.path, CUSTOM_TYPES_DIR, "testimonial", "index.json");
    await writeFile(file, '{"id": "testimonial", "label": "Testim'); // saved half-way
    expect(
      ((await (await fetch(service.endpoint)).json()) as { types: Record<string, string> }).types,
    ).toHaveProperty("testimonial", "Testimonial");
    await writeFile(file, JSON.stringify({ ...TESTIMONIAL_TYPE, label: "Customer words" }));
    expect(
      ((await (await fetch(service.endpoint)).json()) as { types: Record<string, string> }).types,
    ).toHaveProperty("testimonial", "Customer words");
  });
});
