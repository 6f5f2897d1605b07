/**
 * Preview pages only. Prismic's toolbar fires `prismicPreviewUpdate` when the editor saves a draft
 * and reloads the page unless someone cancels it: this site lets it reload.
 */
document.addEventListener("prismicPreviewUpdate", () => undefined);
