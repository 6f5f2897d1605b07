/**
 * The import rules of docs/architecture.md ("Folders and who may import whom"),
 * enforced by `npm run imports` (part of `npm test`).
 */
// TypeScript 7 has no JavaScript API, so dependency-cruiser parses with swc, whose options it fixes
// without `tsx`: every .tsx file would be a syntax error. Turn `tsx` on for those files only.
const swc = require("@swc/core");
const parseFileSync = swc.parseFileSync;
swc.parseFileSync = (file, options) =>
  parseFileSync(file, String(file).endsWith(".tsx") ? { ...options, tsx: true } : options);

const BROWSER = "^web/src/browser/";
const CONTACT_RULES = "^services/shared/src/contact/contact-rules\\.ts$";
// The one list of reserved names and the uid grammar: the build, the preview server and the local
// content service's edit API must agree, so the local content service may import this one file.
const UID_RULES = "^web/src/uid-rules\\.ts$";
// The Slice Machine custom types: the contract between Prismic and the site, which the renderer's content
// normaliser reads as data (web/src/content/models.ts).
const CUSTOM_TYPE_MODELS = "^customtypes/[^/]+/index\\.json$";
const onlyFrom = (name, from, allowed, comment) => ({
  name,
  comment,
  severity: "error",
  from: { path: from },
  to: {
    dependencyTypesNot: ["npm", "npm-dev", "npm-optional", "npm-peer", "core", "type-only"],
    pathNot: allowed,
  },
});

module.exports = {
  forbidden: [
    onlyFrom(
      "shared-imports-packages-only",
      "^services/shared/",
      "^services/shared/",
      "services/shared may import packages only",
    ),
    onlyFrom(
      "local-prismic-imports-packages-only",
      "^services/local-prismic/",
      `^services/local-prismic/|${UID_RULES}`,
      "the local content service stands alone: packages only (type-only imports of the config it is started with are fine), " +
        "and web/src/uid-rules.ts, the uid rules it must share with the build (that file imports nothing)",
    ),
    onlyFrom(
      "webhook-imports-shared",
      "^services/webhook/",
      "^services/(webhook|shared)/",
      "services/webhook may import services/shared",
    ),
    onlyFrom(
      "site-imports-shared",
      "^services/site/",
      "^services/(site|shared)/",
      "services/site may import services/shared",
    ),
    onlyFrom(
      "preview-imports-shared-and-web",
      "^services/preview/",
      `^services/(preview|shared)/|^web/(?!src/browser/)`,
      "services/preview may import services/shared and web (server side)",
    ),
    onlyFrom(
      "worker-imports-shared-and-web",
      "^worker/",
      `^worker/|^services/shared/|^web/(?!src/browser/)`,
      "worker may import services/shared and web (server side)",
    ),
    onlyFrom(
      "web-imports-packages-only",
      "^web/(?!src/browser/)",
      `^web/|${CUSTOM_TYPE_MODELS}`,
      "web may import packages only; the content client is passed in (web/src/browser: see browser-is-browser-safe). " +
        "One exception: the custom type models (customtypes/<id>/index.json), read as data by web/src/content/models.ts",
    ),
    {
      name: "browser-is-browser-safe",
      comment:
        "the browser bundle: no node:*, no @prismicio/client, nothing server-side. One exception: the contact form's " +
        "per-field rules (services/shared/src/contact/contact-rules.ts) are imported by the contact-form island so the " +
        "browser and the site server run the same code; the rules below keep that file browser-safe",
      severity: "error",
      from: { path: BROWSER },
      to: {
        dependencyTypesNot: ["type-only"],
        pathNot: `${BROWSER}|${CONTACT_RULES}`,
        path: "^(?!node_modules/)|node_modules/@prismicio/client/",
      },
    },
    {
      name: "contact-rules-are-browser-safe",
      comment:
        "contact-rules.ts goes to the browser: packages only, no node:*, no zod (92 KB gzip), no full phone metadata",
      severity: "error",
      from: { path: CONTACT_RULES },
      to: {
        dependencyTypesNot: ["type-only"],
        path: "^(?!node_modules/)|node_modules/(zod|@prismicio)/|node_modules/libphonenumber-js/(?!min/|package\\.json)",
      },
    },
    {
      name: "uid-rules-import-nothing",
      comment: "web/src/uid-rules.ts is imported by the local content service too: it stays a leaf",
      severity: "error",
      from: { path: UID_RULES },
      to: { dependencyTypesNot: ["type-only"] },
    },
    {
      name: "contact-rules-no-node-builtins",
      severity: "error",
      from: { path: CONTACT_RULES },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "browser-no-node-builtins",
      severity: "error",
      from: { path: BROWSER },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "nothing-imports-tests",
      comment: "tests may import anything; nothing imports tests",
      severity: "error",
      from: { pathNot: "^tests/" },
      to: { path: "^tests/" },
    },
    {
      name: "rooms-by-name",
      comment:
        "an import that leaves its top-level folder (bin, scripts, tests, web, worker, services/<name>) names the room " +
        '(package.json "imports": #storage, #content, #web/..., see docs/architecture.md and services/shared/README.md) ' +
        "instead of climbing the tree with ../; imports inside a folder stay relative",
      severity: "error",
      from: { path: "^(services/[^/]+|[^/]+)/" },
      to: { dependencyTypes: ["local"], dependencyTypesNot: ["aliased"], pathNot: "^$1/" },
    },
    {
      name: "no-circular",
      severity: "error",
      from: {},
      to: { circular: true, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    parser: "swc",
    doNotFollow: { path: "node_modules" },
    // tests/bench/next-peer is a Next app the benchmark installs and builds under TMPDIR (npm run
    // bench:edit-live): its `next` imports resolve there only, never in this project.
    exclude: { path: "(^|/)(data|\\.tmp)/|^tests/bench/next-peer/" },
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types"],
    },
  },
};
