import { randomUUID } from "node:crypto";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { writeContactArchive } from "#contact/contact-archive.ts";
import { type ContactErrors, validateContact } from "#contact/validate-contact.ts";
import { QueueUnavailableError } from "#jobs/fail-fast-queue.ts";
import type { SiteStore } from "#storage";
import { rateKeyFor } from "./client-address.ts";
import { backPath, renderResultPage, safePath } from "./contact-page.ts";
import type { ContactQueue } from "./contact-queue.ts";

export const CONTACT_PATH = "/api/contact";
/** Where a no-JavaScript post lands after success (Post/Redirect/Get: a reload does not resend). */
export const CONTACT_SENT_PATH = "/api/contact/sent";
/** A message is at most ~5 KB of text; anything near this is not a person typing. */
export const CONTACT_BODY_LIMIT = 32 * 1024;

export interface ContactRoutesOptions {
  queue: ContactQueue;
  /** For the site's stylesheet on the result pages. */
  store?: SiteStore;
  /** Unexpected failures (5xx): the site's error answer (error page, or JSON for JSON clients). */
  onServerError?: (request: FastifyRequest, reply: FastifyReply, error: unknown) => Promise<FastifyReply>;
}

const FORM = "application/x-www-form-urlencoded";
const UNKNOWN_CLIENT = "The request did not say where it came from; please send the form again.";
const text = (maxLength: number) => ({ type: "string", maxLength });

/** Shape only; the rules (and their human messages) are validateContact's. */
const bodySchema = {
  type: "object",
  properties: {
    name: text(2_000),
    email: text(2_000),
    phone: text(200),
    message: text(50_000),
    website: text(2_000),
    default_country: text(10),
    consent: { anyOf: [{ type: "boolean" }, { type: "string", maxLength: 10 }] },
  },
  additionalProperties: false,
} as const;

type Answer =
  | { status: 202; id: string }
  | { status: 400; errors: ContactErrors | { form: string } }
  | { status: 429; retryAfterSeconds: number }
  | { status: 503 };

/** `POST /api/contact` for JSON clients (the island) and plain form posts (no JavaScript). */
export async function contactRoutes(app: FastifyInstance, options: ContactRoutesOptions): Promise<void> {
  const { queue, store } = options;

  // The no-JavaScript form. URLSearchParams is the WHATWG parser browsers encode for; a repeated
  // field keeps its last value, which is what a form with unique names never sends anyway.
  app.addContentTypeParser(
    FORM,
    { parseAs: "string", bodyLimit: CONTACT_BODY_LIMIT },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );

  // Fastify's own refusals (413, 415, unreadable JSON) in the same two shapes as ours.
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      if (options.onServerError) return options.onServerError(request, reply, error);
      request.log.error({ err: error }, "contact request failed");
      return reply.code(500).send({ error: "internal_error" });
    }
    const message =
      status === 413
        ? "The message is too long to send."
        : status === 415
          ? "Send the form as JSON or as a plain form post."
          : "The form could not be read; please try again.";
    return answer(request, reply, { status: 400, errors: { form: message } }, status);
  });

  app.post(
    CONTACT_PATH,
    { bodyLimit: CONTACT_BODY_LIMIT, schema: { body: bodySchema }, attachValidation: true },
    async (request, reply) => {
      if (request.validationError) {
        const errors: Record<string, string> = {};
        for (const issue of request.validationError.validation ?? []) {
          const field = issue.instancePath.replace(/^\//, "") || "form";
          errors[field] =
            field === "form" ? "The form could not be read; please try again." : "This is too long.";
        }
        return answer(request, reply, { status: 400, errors });
      }
      const result = validateContact(request.body);
      if (!result.ok) return answer(request, reply, { status: 400, errors: result.errors });
      // Bots that fill the honeypot get the same answer as people, and nothing is delivered.
      if (result.trapped) {
        request.log.info({ ip: request.ip }, "contact honeypot filled; message dropped");
        return answer(request, reply, { status: 202, id: randomUUID() });
      }
      // Only a real address becomes a rate-limit key (client-address.ts): a forwarded value that is
      // none is refused rather than counted under a key of the client's choosing.
      const rateKey = rateKeyFor(request.ip);
      if (rateKey === undefined) {
        request.log.info(
          { ip: request.ip.slice(0, 100) },
          "contact refused: client address is not an IP address",
        );
        return answer(request, reply, { status: 400, errors: { form: UNKNOWN_CLIENT } });
      }
      try {
        const rate = await queue.hit(rateKey);
        if (!rate.allowed) {
          request.log.warn({ ip: request.ip, rateKey }, "contact rate limit reached");
          return answer(request, reply, { status: 429, retryAfterSeconds: rate.retryAfterSeconds });
        }
        // Archived in storage before Redis: a 202 survives Redis losing its data (contact-archive.ts).
        const archive = store
          ? (payload: { id: string; receivedAt: string }) =>
              writeContactArchive(store, payload).catch((error: unknown) => {
                request.log.error({ err: error }, "contact message could not be archived");
                throw new QueueUnavailableError("storage unavailable");
              })
          : undefined;
        const { id } = await queue.enqueue(result.value, archive);
        // Never the message or the visitor's details: the id finds them in the archive.
        request.log.info({ contactId: id }, "contact message queued");
        return answer(request, reply, { status: 202, id });
      } catch (error) {
        if (!(error instanceof QueueUnavailableError)) throw error;
        return answer(request, reply, { status: 503 });
      }
    },
  );

  app.get(CONTACT_SENT_PATH, async (request, reply) => {
    const back = safePath((request.query as { back?: string }).back);
    const html = await renderResultPage(
      {
        title: "Thank you",
        paragraphs: ["Your message has been sent. We will get back to you soon."],
        back,
      },
      store,
    );
    return reply.header("cache-control", "no-store").type("text/html; charset=utf-8").send(html);
  });

  async function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    result: Answer,
    status: number = result.status,
  ) {
    reply.header("cache-control", "no-store");
    if (result.status === 429) reply.header("retry-after", String(result.retryAfterSeconds));
    if (result.status === 503) reply.header("retry-after", "30");
    const isForm = (request.headers["content-type"] ?? "").toLowerCase().startsWith(FORM);
    if (!isForm) return reply.code(status).send(jsonBody(result));

    const back = backPath(request.headers.referer, request.headers.host);
    if (result.status === 202)
      return reply.redirect(`${CONTACT_SENT_PATH}?back=${encodeURIComponent(back)}`, 303);
    const page =
      result.status === 400
        ? {
            title: "Please check the form",
            paragraphs: [
              "Your message was not sent. Go back (your browser's Back button keeps what you typed) and correct:",
            ],
            errors: result.errors as Record<string, string>,
          }
        : result.status === 429
          ? {
              title: "Too many messages",
              paragraphs: [
                `Your message was not sent. Please try again in ${Math.ceil(result.retryAfterSeconds / 60)} minutes.`,
              ],
            }
          : {
              title: "Message not sent",
              paragraphs: ["We could not take your message just now. Please try again in a minute."],
            };
    const html = await renderResultPage({ ...page, back }, store);
    return reply.code(status).type("text/html; charset=utf-8").send(html);
  }
}

function jsonBody(result: Answer): Record<string, unknown> {
  switch (result.status) {
    case 202:
      return { id: result.id };
    case 400:
      return { errors: result.errors };
    case 429:
      return {
        error: "rate_limited",
        message: "Too many messages; try again later.",
        retryAfter: result.retryAfterSeconds,
      };
    case 503:
      return { error: "unavailable", message: "The message could not be queued; try again in a minute." };
  }
}
