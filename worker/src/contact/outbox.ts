import { mkdir, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { createTransport, type SendMailOptions } from "nodemailer";

/**
 * The local outbox (`CONTACT_OUTBOX`): each contact message as an RFC 5322 `.eml` file, exactly
 * the mail the SMTP server would have received (nodemailer builds it the same way), for a run with
 * no mail server (`pressroom start`). Any mail client opens it; it is plain text too. The name
 * sorts by arrival (`<received at>-<id>.eml`); a retry rewrites the same file (written aside,
 * then renamed, so a reader never sees half a message).
 */
export async function writeToOutbox(
  folder: string,
  message: { id: string; receivedAt: string },
  mail: SendMailOptions,
): Promise<{ file: string; messageId: string }> {
  const transport = createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  const info = await transport.sendMail(mail);
  const dir = resolve(folder);
  await mkdir(dir, { recursive: true });
  const stamp = message.receivedAt.replace(/[:.]/g, "-");
  const file = join(dir, `${stamp}-${message.id}.eml`);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, info.message as Buffer);
  await rename(temp, file);
  return { file, messageId: String(info.messageId ?? "") };
}
