import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CustomTypeModelSchema, SharedSliceModelSchema } from "@prismicio/types-internal/zod4";
import { afterAll, describe, expect, it } from "vitest";
import { CUSTOM_TYPES_DIR, loadModels, modelsFromFiles, sliceLibraries } from "#local-prismic/models.ts";
import { validateSlice } from "#local-prismic/validate.ts";
import { generateModelTypes, TYPES_FILE } from "#scripts/codegen.ts";
import { customTypeModels, sliceModels } from "#web/content/models.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The demo's one slice library (slicemachine.config.json). */
const [SLICE_LIBRARY_DIR] = sliceLibraries(ROOT) as [string];
const models = loadModels(ROOT);
const fieldsOf = (id: string) => {
  const model = models.customTypes.find((ct) => ct.id === id);
  return model ? Object.assign({}, ...Object.values(model.json)) : {};
};
const pascal = (id: string) => id.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());

describe("content models", () => {
  it("loads every model file: each custom type's index.json and each slice's model.json, sorted by id", () => {
    // Derived from the folders, so that a model added with Slice Machine needs no change here.
    const idsIn = (dir: string, file: string) =>
      readdirSync(join(ROOT, dir), { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, dir, entry.name, file)))
        .map(
          (entry) =>
            (JSON.parse(readFileSync(join(ROOT, dir, entry.name, file), "utf8")) as { id: string }).id,
        )
        .sort();
    expect(models.customTypes.map((ct) => ct.id)).toEqual(idsIn(CUSTOM_TYPES_DIR, "index.json"));
    expect(models.slices.map((s) => s.id)).toEqual(idsIn(SLICE_LIBRARY_DIR, "model.json"));
    expect(models.slices.length).toBeGreaterThan(0);
    // The types the site routes and reads (its pages, price lists, redirects, settings).
    expect(models.customTypes.map((ct) => ct.id)).toEqual(
      expect.arrayContaining(["page", "price_list", "redirect", "settings"]),
    );
  });

  it("are accepted by Prismic's own model schemas", () => {
    for (const ct of models.customTypes) {
      const result = CustomTypeModelSchema.safeParse(ct);
      expect(result.success, `${ct.id}: ${JSON.stringify(result.error?.issues)}`).toBe(true);
    }
    for (const slice of models.slices) {
      const result = SharedSliceModelSchema.safeParse(slice);
      expect(result.success, `${slice.id}: ${JSON.stringify(result.error?.issues)}`).toBe(true);
    }
  });

  it("keep the field API ids the site reads", () => {
    expect(Object.keys(fieldsOf("page"))).toEqual(
      expect.arrayContaining(["uid", "title", "slices", "meta_title", "meta_description", "meta_image"]),
    );
    expect(fieldsOf("page").title.config.single).toBe("heading1");
    expect(Object.keys(fieldsOf("price_list"))).toEqual(expect.arrayContaining(["uid", "title", "rows"]));
    expect(models.customTypes.find((ct) => ct.id === "settings")?.repeatable).toBe(false);
  });

  it("has every slice of the page's slice zone as a model, and no model outside it", () => {
    const zone = fieldsOf("page").slices;
    expect(zone.type).toBe("Slices");
    expect(Object.keys(zone.config.choices).sort()).toEqual(models.slices.map((s) => s.id));
    for (const choice of Object.values(zone.config.choices) as { type: string }[]) {
      expect(choice.type).toBe("SharedSlice");
    }
  });

  it("keeps each slice in a folder named after its id, with mocks that satisfy the model", () => {
    for (const slice of models.slices) {
      const dir = join(ROOT, SLICE_LIBRARY_DIR, pascal(slice.id));
      const model = JSON.parse(readFileSync(join(dir, "model.json"), "utf8")) as { id: string };
      expect(model.id).toBe(slice.id);
      const mocks = JSON.parse(readFileSync(join(dir, "mocks.json"), "utf8")) as unknown[];
      expect(mocks.length, `${slice.id} has no mocks`).toBeGreaterThan(0);
      mocks.forEach((mock, i) => {
        expect(validateSlice(mock, models, `${slice.id}/mocks.json[${i}]`)).toEqual([]);
      });
    }
  });

  it("matches the committed generated types", () => {
    const committed = readFileSync(join(ROOT, TYPES_FILE), "utf8");
    expect(committed === generateModelTypes(ROOT), `${TYPES_FILE} is out of date: run npm run codegen`).toBe(
      true,
    );
  });

  it("generates the same types twice", () => {
    expect(generateModelTypes(ROOT)).toBe(generateModelTypes(ROOT));
  });

  it("are all registered where the renderer reads them", () => {
    // The content normaliser fills absent fields from these (web/src/content/normalize.ts): a
    // model missing here would leave its documents' absent fields absent.
    expect(customTypeModels).toEqual(Object.fromEntries(models.customTypes.map((ct) => [ct.id, ct])));
    expect(sliceModels).toEqual(Object.fromEntries(models.slices.map((slice) => [slice.id, slice])));
  });
});

describe("models read from files while the service runs", () => {
  const dir = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `models-${process.pid}-${Date.now()}`);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("are read again only when a model file changed: the check itself parses nothing", () => {
    cpSync(join(ROOT, CUSTOM_TYPES_DIR), join(dir, CUSTOM_TYPES_DIR), { recursive: true });
    cpSync(join(ROOT, SLICE_LIBRARY_DIR), join(dir, SLICE_LIBRARY_DIR), { recursive: true });
    let reads = 0;
    const source = modelsFromFiles(dir, { onReload: () => reads++ });
    const first = source.current();
    expect(source.current()).toBe(first);
    expect(reads).toBe(0);
    const slice = models.slices[0] as { id: string };
    mkdirSync(join(dir, SLICE_LIBRARY_DIR, "Added"));
    writeFileSync(
      join(dir, SLICE_LIBRARY_DIR, "Added", "model.json"),
      JSON.stringify({ ...slice, id: "added" }),
    );
    const next = source.current();
    expect(next).not.toBe(first);
    expect(next.slices.map((s) => s.id)).toContain("added");
    expect(source.current()).toBe(next);
    expect(source.last()).toBe(next);
    expect(reads).toBe(1);
  });
});
