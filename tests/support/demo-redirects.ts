/**
 * The demo repository's redirect documents (services/local-prismic/demo/documents),
 * as a build serves them: `/team` → the about page (permanent), `/spring-workshops` → the workshops
 * price list (temporary). Tests that compare a manifest's redirects include them.
 */
export const DEMO_REDIRECTS: Readonly<Record<string, string>> = {
  "/spring-workshops": "/price-list/workshops",
  "/team": "/about",
};
/** The demo's temporary ones (302: no S3 redirect location, so no metadata file on a folder). */
export const DEMO_TEMPORARY_REDIRECTS: readonly string[] = ["/spring-workshops"];
