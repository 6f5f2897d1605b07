import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CustomTypeModelSchema, SharedSliceModelSchema } from "@prismicio/types-internal/zod4";
import { describe, expect, it } from "vitest";
import { loadModels, SLICE_LIBRARY_DIR } from "#local-prismic/models.ts";
import { validateSlice } from "#local-prismic/validate.ts";
import { generateModelTypes, TYPES_FILE } from "#scripts/codegen.ts";
import { customTypeModels, sliceModels } from "#web/content/models.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const models = loadModels(ROOT);
const fieldsOf = (id: string) => {
  const model = models.customTypes.find((ct) => ct.id === id);
  return model ? Object.assign({}, ...Object.values(model.json)) : {};
};
const pascal = (id: string) => id.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());

describe("content models", () => {
  it("loads the four custom types and six shared slices", () => {
    expect(models.customTypes.map((ct) => ct.id)).toEqual(["page", "price_list", "redirect", "settings"]);
    expect(models.slices.map((s) => s.id)).toEqual([
      "carousel",
      "contact_form",
      "faq",
      "hero",
      "price_list_table",
      "text_section",
    ]);
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
