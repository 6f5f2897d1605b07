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
// The engine's modules a website may import besides the contract's types: each imports nothing of
// the project (rule engine-for-websites-are-leaves). The contact form's rules (one copy for the
// site server's API and the form's island), the uid segment grammar, the dependency grammar.
const FOR_WEBSITES = `${CONTACT_RULES}|^services/shared/src/content/(uid-segments|dependencies)\\.ts$`;
// The website contract and its loader: the engine's one way to a website.
const WEBSITE_CONTRACT = "^services/shared/src/website/";
// The contract's types, which a website implements (`import type`: swc reports it as a plain import).
const CONTRACT_TYPES = "^services/shared/src/(website/contract|content/source)\\.ts$";
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
    {
      name: "engine-reaches-the-website-through-#website",
      comment:
        "the engine (worker, bin, services) publishes ANY website: it imports nothing of web/ or customtypes/ (types " +
        "included), only the contract and the loaded website (#website, services/shared/src/website/), whose loader " +
        "alone reaches a website, by a dynamic import of PRESSROOM_WEBSITE",
      severity: "error",
      from: { path: "^(worker|bin|services)/", pathNot: WEBSITE_CONTRACT },
      to: { path: "^(web|customtypes)/" },
    },
    onlyFrom(
      "local-prismic-imports-packages-only",
      "^services/local-prismic/",
      `^services/local-prismic/|${WEBSITE_CONTRACT}`,
      "the local content service stands alone: packages only (type-only imports of the config it is started with are fine), " +
        "and the website (#website), whose models it serves and whose uid rules its edit API applies as the build does",
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
      "preview-imports-shared",
      "^services/preview/",
      "^services/(preview|shared)/",
      "services/preview may import services/shared (the website through #website)",
    ),
    onlyFrom(
      "worker-imports-shared",
      "^worker/",
      "^worker/|^services/shared/",
      "worker may import services/shared (the website through #website)",
    ),
    onlyFrom(
      "web-imports-packages-only",
      "^web/(?!src/browser/)",
      `^web/|${CUSTOM_TYPE_MODELS}|${FOR_WEBSITES}|${CONTRACT_TYPES}`,
      "web may import packages only; the content source is passed in (web/src/browser: see browser-is-browser-safe). " +
        "Exceptions: the custom type models (customtypes/<id>/index.json), read as data by web/src/content/models.ts, " +
        "the engine's modules for websites (FOR_WEBSITES) and the contract's types (CONTRACT_TYPES, type-only)",
    ),
    {
      name: "engine-for-websites-are-leaves",
      comment:
        "the engine's modules for websites (contact rules, uid segments, dependency grammar) are imported by a " +
        "website and its browser bundle: packages only",
      severity: "error",
      from: { path: FOR_WEBSITES },
      to: { dependencyTypesNot: ["type-only"], path: "^(?!node_modules/)" },
    },
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
