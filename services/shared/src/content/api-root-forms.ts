import type { Form, Repository } from "@prismicio/client";
import { ContentQueryError } from "../errors.ts";

/**
 * What a content query needs from the API root besides refs: its forms (`everything` is the search
 * form, `tags` lists the repository's tags; Prismic deprecated the root's own `tags` list in favour
 * of the form) and its bookmarks (name → document id). A real API root can lack any of them (an old
 * repository, a proxy, an endpoint that is not Prismic's); each absence is said in the site spec's
 * words, naming the endpoint, instead of failing later as an undefined property.
 */
export function repositoryForm(repository: Partial<Repository>, name: string, endpoint: string): Form {
  const forms = repository.forms as Record<string, Form | undefined> | undefined;
  if (forms === null || typeof forms !== "object")
    throw new ContentQueryError(
      `Unable to access to form "${name}": the API root at ${endpoint} lists no forms`,
    );
  const form = forms[name];
  if (!form) {
    if (name === "tags") throw new ContentQueryError(`Missing tags form in the API root at ${endpoint}`);
    if (name === "everything")
      throw new ContentQueryError(`Missing everything form in the API root at ${endpoint}`);
    throw new ContentQueryError(
      `Unable to access to form "${name}": the API root at ${endpoint} has no such form`,
    );
  }
  if (typeof form.action !== "string" || !URL.canParse(form.action))
    throw new ContentQueryError(`Unable to access to form "${name}": its action is not a URL (${endpoint})`);
  return form;
}

/** The document id a bookmark names in the API root. */
export function bookmarkedId(repository: Partial<Repository>, name: string, endpoint: string): string {
  const id = (repository.bookmarks as Record<string, unknown> | undefined)?.[name];
  if (typeof id !== "string" || id === "")
    throw new ContentQueryError(
      `Error retrieving bookmarked id: the API root at ${endpoint} has no bookmark "${name}"`,
    );
  return id;
}
