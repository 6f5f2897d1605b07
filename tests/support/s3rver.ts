import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

const ROOT = new URL("../../", import.meta.url).pathname;

export interface S3Server {
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  stop(): Promise<void>;
}

/**
 * s3rver, a real S3-protocol server, on a free loopback port. It runs in a child process: its
 * ListObjectsV2 continuation tokens use DES, which Node's OpenSSL 3 only offers with
 * --openssl-legacy-provider (a flag that cannot be set in-process).
 */
export async function startS3rver(directory: string): Promise<S3Server> {
  const script = `
    const S3rver = require("s3rver");
    const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory: process.argv[1] });
    server.run().then(({ port }) => console.log(JSON.stringify({ port })), (e) => { console.error(e); process.exit(1); });
    process.stdin.on("end", () => process.exit(0)).resume();`;
  const child: ChildProcess = spawn(
    process.execPath,
    ["--openssl-legacy-provider", "-e", script, directory],
    {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`s3rver exited (code ${code}) before listening`)));
  });
  const { port } = JSON.parse(line) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    async stop() {
      child.stdin?.end(); // the child exits when its stdin closes, also if this process dies
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}
