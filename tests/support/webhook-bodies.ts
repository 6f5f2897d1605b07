/**
 * Webhook bodies as real Prismic sent them, derived from other projects' recordings and Prismic's own
 * type tests (tests/support/fixtures/SOURCES.md names each). Only what names a repository is replaced — `domain`,
 * `apiUrl`, `secret`, and the refs and ids, which must exist in the repository under test — so the
 * shapes stay what Prismic sends: fields absent where the recording has none, empty objects where it
 * has them.
 */

export interface Repository {
  domain: string;
  secret: string;
}

/**
 * "renderful.api-update": recorded from real Prismic in 2020 by github.com/nebulab/renderful
 * (`spec/renderful/provider/prismic_spec.rb`). A new master ref and **no `documents` field at all**;
 * `releases`, `masks`, `tags`, `experiments` empty; `secret` null in the recording.
 */
export function masterRefWithoutDocuments(repository: Repository, masterRef: string) {
  return {
    type: "api-update",
    masterRef,
    releases: {},
    masks: {},
    tags: {},
    experiments: {},
    domain: repository.domain,
    apiUrl: `https://${repository.domain}.prismic.io/api`,
    secret: repository.secret,
  };
}

/**
 * "webhappens.release_update": github.com/webhappens/prismic `tests/WebhookTest.php`. A release
 * changed: **no `masterRef`**, the id only inside `releases.update[].documents` (`domain`/`apiUrl`
 * were left out by that test; added here, as the receiver checks `domain`).
 */
export function releaseUpdateOnly(repository: Repository, documentId: string) {
  return {
    type: "api-update",
    releases: {
      update: [
        {
          id: "X6qq1BIAACEAVg1H",
          ref: "X6qq1BIAACUAVg1J~X6qqwBIAACEAVg0i",
          label: "release2",
          documents: [documentId],
        },
      ],
    },
    domain: repository.domain,
    secret: repository.secret,
  };
}

/** "webhappens.release_addition": a release created with no document yet; no `masterRef`. */
export function releaseAdditionEmpty(repository: Repository) {
  return {
    type: "api-update",
    releases: {
      addition: [
        {
          id: "X66oBhIAACMAaDeo",
          ref: "X66oBhIAABMAaDep~X66c6xIAACEAZ8LK",
          label: "release4",
          documents: [],
        },
      ],
    },
    domain: repository.domain,
    secret: repository.secret,
  };
}

/** "webhappens.document_published": one document published, the ordinary body. */
export function documentPublished(repository: Repository, masterRef: string, documentId: string) {
  return {
    type: "api-update",
    masterRef,
    documents: [documentId],
    domain: repository.domain,
    secret: repository.secret,
  };
}
