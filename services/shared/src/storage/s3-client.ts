import { S3Client } from "@aws-sdk/client-s3";
import type { StorageConfig } from "../config/index.ts";

export const DEFAULT_S3_TIMEOUT_MS = 30_000;

/**
 * The S3 client for a store. Credentials come from the SDK's default chain (AWS_ACCESS_KEY_ID /
 * AWS_SECRET_ACCESS_KEY, profiles, instance roles), so no secret passes through our config.
 */
export function createS3Client(config: StorageConfig, timeoutMs = DEFAULT_S3_TIMEOUT_MS): S3Client {
  return new S3Client({
    region: config.s3Region,
    // MinIO, s3rver and most S3-compatible servers serve buckets as paths, not as subdomains.
    ...(config.s3Endpoint ? { endpoint: config.s3Endpoint, forcePathStyle: true } : {}),
    // Since SDK 3.729 the default ("WHEN_SUPPORTED") adds CRC checksums to every upload and, for
    // streamed bodies, aws-chunked framing with trailers: servers that do not speak it (s3rver,
    // older MinIO, several S3-compatibles) store the framing as the object's bytes, silently.
    // Integrity is kept with Content-MD5 instead, which every S3-compatible server checks.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    // The SDK waits forever by default: a hung server would hang a publish instead of failing it.
    requestHandler: { connectionTimeout: Math.min(5_000, timeoutMs), socketTimeout: timeoutMs },
  });
}
