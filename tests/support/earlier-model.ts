import { rm } from "node:fs/promises";
import type { PrismicDocument } from "@prismicio/client";
import { newPrismicId } from "#local-prismic/ids.ts";
import { RepositoryFolder } from "#local-prismic/persistence.ts";
import type { ContentServiceOptions } from "#local-prismic/server.ts";
import { type LocalPrismic, startLocalPrismic } from "./local-prismic.ts";

/**
 * Documents as Prismic keeps them when they were published under an earlier version of a model and
 * the model changed since: a field holding the kind of value its old type had (text where the model
 * now has rich text), a slice variation since removed. Prismic serves them as they are. The local
 * content service's edit API checks every edit against today's models (docs/local-content-service.md)
 * and refuses them, so here they are written into its repository folder as that earlier publish left
 * them (a new master ref, as a publish makes) and the service is restarted on the folder, which it
 * reads back without checking, as Prismic never re-checks what it stored.
 *
 * `change` receives each stored document of `ids` (a copy) and edits its data. Returns the restarted
 * service, on a new port; its `stop()` also removes the folder (the old instance's `stop` must not be
 * called).
 */
export async function publishUnderEarlierModel(
  service: LocalPrismic,
  ids: readonly string[],
  change: (doc: PrismicDocument) => void,
  options: Partial<ContentServiceOptions> = {},
): Promise<LocalPrismic> {
  const docs = ids.map((id) => {
    const stored = service.store.masterDocuments.find((doc) => doc.id === id);
    if (!stored) throw new Error(`no published document ${id}`);
    const copy = structuredClone(stored) as PrismicDocument;
    change(copy);
    return copy;
  });
  await service.close();
  const folder = new RepositoryFolder(service.dataDir);
  const state = await folder.readState();
  if (!state) throw new Error(`${service.dataDir} holds no repository`);
  for (const doc of docs) state.documents[doc.id] = await folder.writeObject(doc);
  state.masterRef = newPrismicId();
  state.knownRefs.push(state.masterRef);
  await folder.writeState(state);
  const restarted = await startLocalPrismic({ ...options, dataDir: service.dataDir });
  return {
    ...restarted,
    stop: async () => {
      await restarted.close();
      await rm(service.dataDir, { recursive: true, force: true });
    },
  };
}
