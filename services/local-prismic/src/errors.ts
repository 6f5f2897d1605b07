/** An edit refused because it does not fit the models: answered as 422 naming the field. */
export class EditRejectedError extends Error {
  override readonly name = "EditRejectedError";
  constructor(readonly issues: readonly { id?: string; path: string; message: string }[]) {
    super(
      `The edit was refused: ${issues
        .slice(0, 5)
        .map((i) => `${i.id ? `${i.id} ` : ""}${i.path}: ${i.message}`)
        .join("; ")}${issues.length > 5 ? ` (and ${issues.length - 5} more)` : ""}`,
    );
  }
}
