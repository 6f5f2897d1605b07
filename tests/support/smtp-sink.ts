import { SMTPServer } from "smtp-server";
import { until } from "./until.ts";

export interface Mail {
  to: string[];
  raw: string;
}

/** A real SMTP server (the `smtp-server` package) on a free local port, keeping every message it receives. */
export interface SmtpSink {
  url: string;
  /** Messages received, in order. */
  mail: Mail[];
  /** Resolves with the first message containing `text` (case-insensitive), or fails after `timeoutMs`. */
  waitFor(text: string, timeoutMs?: number): Promise<Mail>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const mail: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    secure: false,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        mail.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mail,
    waitFor: (text, timeoutMs = 10_000) =>
      until(
        () => `a mail containing "${text}" (${mail.length} received)`,
        () => mail.find((m) => m.raw.toLowerCase().includes(text.toLowerCase())),
        { timeoutMs },
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
