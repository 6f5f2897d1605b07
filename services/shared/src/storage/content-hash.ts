import { createHash } from "node:crypto";

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** sha256 of the bytes, lowercase hex; strings are hashed as UTF-8 (as `put` stores them). */
export function sha256(body: Uint8Array | string): string {
  return createHash("sha256").update(body).digest("hex");
}

export function isSha256Hex(value: unknown): value is string {
  return typeof value === "string" && SHA256_HEX.test(value);
}
