import type { Browser, BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { hasChromium } from "./support/browser.ts";
import { CONTACT_TO, type SiteFixture, siteInBrowser } from "./support/site.ts";

/**
 * The contact page's form as visitors use it, with and without JavaScript, against the real
 * site server (contact API, Redis rate limit and queue), the BullMQ contact worker and a real
 * SMTP server. Field ids derive from the slice id of the demo's contact form.
 * `UPDATE_SCREENSHOTS=1` writes docs/screenshots/contact-errors-1280.png.
 */
const FORM = "contact-form-604cb42e-d21e-4003-ae07-bc74e364ecdb";
const SCREENSHOT = new URL("../../docs/screenshots/contact-errors-1280.png", import.meta.url).pathname;
const SUCCESS = "Thank you — your message is on its way. We will reply within one working day.";

let browser: Browser;

interface Visit {
  context: BrowserContext;
  page: Page;
  problems: string[];
  /** Every request the page made to the contact API. */
  posts: string[];
}

async function visitContact(
  site: SiteFixture,
  options: { javaScriptEnabled?: boolean } = {},
): Promise<Visit> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  const page = await context.newPage();
  const problems: string[] = [];
  const posts: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
  });
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.startsWith("/api/contact")) posts.push(request.method());
  });
  await page.goto(`${site.url}/contact`);
  if (options.javaScriptEnabled !== false)
    await page.locator('[data-island="contact-form"][data-hydrated]').waitFor();
  return { context, page, problems, posts };
}

const field = (page: Page, name: string) => page.locator(`#${FORM}-${name}`);

async function fillIn(page: Page, values: { name: string; email: string; message: string }): Promise<void> {
  await field(page, "name").fill(values.name);
  await field(page, "email").fill(values.email);
  await field(page, "message").fill(values.message);
  await field(page, "consent").check();
}

describe.skipIf(!hasChromium)("the contact form", () => {
  let site: SiteFixture;

  siteInBrowser({}, (fixture) => {
    ({ site, browser } = fixture);
  });

  it("keeps the server's country options when it comes alive, though the page carries them only there", async () => {
    const served = await (await fetch(`${site.url}/contact`)).text();
    // The props script leaves the ~245 countries out: the island reads them from the selector.
    expect(served.match(/Germany \(\+49\)/g)).toHaveLength(1);
    const { context, page, problems } = await visitContact(site);
    const options = () =>
      page.evaluate(
        (id) =>
          Array.from(
            (document.getElementById(id) as HTMLSelectElement).options,
            (o) => `${o.value}=${o.text}`,
          ),
        `${FORM}-country`,
      );
    const before = await options();
    expect(before.length).toBeGreaterThan(200);
    expect(before).toContain("CI=Côte d’Ivoire (+225)");
    // A render of the live form (an error shown) renders the options from what the island read.
    await page.getByRole("button", { name: "Send message" }).click();
    await page.locator(`#${FORM}-name-error`).waitFor();
    expect(await options()).toEqual(before);
    await field(page, "country").selectOption("CI");
    expect(await field(page, "country").inputValue()).toBe("CI");
    // No hydration mismatch: React warns when the markup differs from what the island rendered.
    expect(problems).toEqual([]);
    await context.close();
  }, 30_000);

  it("refuses a bad phone number inline, without sending anything", async () => {
    const { context, page, problems, posts } = await visitContact(site);
    await fillIn(page, { name: "Grace Hopper", email: "grace@example.com", message: "A quote, please." });
    // The slice's default country is the United States; 555-0123 is too short to be a US number.
    expect(await field(page, "country").inputValue()).toBe("US");
    await field(page, "phone").pressSequentially("555-0123");
    await page.getByRole("button", { name: "Send message" }).click();

    const error = page.locator(`#${FORM}-phone-error`);
    await error.waitFor();
    expect(await error.textContent()).toMatch(
      /not a valid phone number for United States|valid phone number for United States/,
    );
    expect(await field(page, "phone").getAttribute("aria-invalid")).toBe("true");
    expect(await field(page, "phone").getAttribute("aria-describedby")).toBe(`${FORM}-phone-error`);
    // Focus goes to the field to correct; the other fields are fine and unmarked.
    expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("phone");
    expect(await field(page, "name").getAttribute("aria-invalid")).toBeNull();
    expect(await page.locator(".contact-form__status").textContent()).toBe(
      "Please correct the highlighted fields.",
    );
    if (process.env.UPDATE_SCREENSHOTS) await page.locator(".contact-form").screenshot({ path: SCREENSHOT });
    expect(posts).toEqual([]);

    // Every empty required field is named at once, again without a request.
    await page.reload();
    await page.locator('[data-island="contact-form"][data-hydrated]').waitFor();
    await page.getByRole("button", { name: "Send message" }).click();
    for (const name of ["name", "email", "message", "consent"])
      await page.locator(`#${FORM}-${name}-error`).waitFor();
    expect(posts).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 30_000);

  it("says the same words for the same bad number with and without JavaScript, naming the country as the selector does", async () => {
    // The countries whose English names Chromium's ICU spells otherwise than Node's (the selector's
    // labels are Node's, rendered by the server), a +<code> that names one of them, and a plain case.
    const cases = [
      { country: "US", phone: "555-0123", name: "United States" },
      { country: "HK", phone: "123", name: "Hong Kong SAR China" },
      { country: "MO", phone: "1234", name: "Macao SAR China" },
      { country: "FK", phone: "12", name: "Falkland Islands" },
      { country: "PS", phone: "12345", name: "Palestinian Territories" },
      { country: "US", phone: "+852 123 45", name: "Hong Kong SAR China" },
    ];
    const values = { name: "Mary Jackson", email: "mary@example.com", message: "Call me, please." };
    const said: { withScript: string; without: string; label: string }[] = [];
    const withScript = await visitContact(site);
    const without = await visitContact(site, { javaScriptEnabled: false });
    for (const { country, phone } of cases) {
      // Without JavaScript: the server's answer page lists "Phone: <message>".
      await without.page.goto(`${site.url}/contact`);
      await fillIn(without.page, values);
      await field(without.page, "country").selectOption(country);
      await field(without.page, "phone").fill(phone);
      await Promise.all([
        without.page.waitForURL(/\/api\/contact$/),
        without.page.getByRole("button", { name: "Send message" }).click(),
      ]);
      const item = without.page.locator(".contact-result__errors li", { hasText: "Phone:" });
      const answer = ((await item.textContent()) ?? "").replace(/^Phone:\s*/, "");
      // With JavaScript: the island's inline message, nothing sent.
      await withScript.page.reload();
      await withScript.page.locator('[data-island="contact-form"][data-hydrated]').waitFor();
      await fillIn(withScript.page, values);
      await field(withScript.page, "country").selectOption(country);
      await field(withScript.page, "phone").fill(phone);
      await withScript.page.getByRole("button", { name: "Send message" }).click();
      const inline = withScript.page.locator(`#${FORM}-phone-error`);
      await inline.waitFor();
      const label = await field(withScript.page, "country").evaluate(
        (select: HTMLSelectElement) => select.selectedOptions[0]?.text ?? "",
      );
      said.push({ withScript: (await inline.textContent()) ?? "", without: answer, label });
    }
    expect(said.map((s) => s.withScript)).toEqual(said.map((s) => s.without));
    for (const [i, { name }] of cases.entries()) expect(said[i]?.without).toContain(` for ${name}.`);
    // The selector lists the country under the same name (its own label for the selected one).
    expect(said[1]?.label).toBe("Hong Kong SAR China (+852)");
    expect(withScript.posts).toEqual([]);
    expect(withScript.problems).toEqual([]);
    await withScript.context.close();
    await without.context.close();
  }, 60_000);

  it("formats a good number as it is typed, sends in place, and the mail arrives with it in E.164", async () => {
    const { context, page, problems, posts } = await visitContact(site);
    await fillIn(page, {
      name: "Ada Lovelace",
      email: "ada@example.com",
      message: "Could you rebuild our site? (in-place send)",
    });
    await field(page, "country").selectOption("GB");
    const phone = field(page, "phone");
    await phone.pressSequentially("2079460958");
    // Formatted for the chosen country as soon as the number is complete.
    expect(await phone.inputValue()).toBe("020 7946 0958");
    await phone.blur();
    expect(await page.locator(`#${FORM}-phone-error`).count()).toBe(0);

    const response = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/contact");
    await page.getByRole("button", { name: "Send message" }).click();
    expect((await response).status()).toBe(202);
    await expect.poll(() => page.locator(".contact-form__status").textContent()).toBe(SUCCESS);
    // The page stayed (no navigation), and the form is empty again for the next message.
    expect(new URL(page.url()).pathname).toBe("/contact");
    expect(await field(page, "name").inputValue()).toBe("");
    expect(await phone.inputValue()).toBe("");
    expect(await field(page, "country").inputValue()).toBe("US");
    expect(posts).toEqual(["POST"]);

    const mail = await site.waitForMail("(in-place send)");
    expect(mail.to).toEqual([CONTACT_TO]);
    expect(mail.raw).toContain("+442079460958");
    expect(mail.raw).toContain("Ada Lovelace");
    expect(problems).toEqual([]);
    await context.close();
  }, 30_000);

  it("clears an error as soon as the field is corrected", async () => {
    const { context, page } = await visitContact(site);
    const email = field(page, "email");
    await email.fill("ada@");
    await email.blur();
    await page.locator(`#${FORM}-email-error`).waitFor();
    expect(await email.getAttribute("aria-invalid")).toBe("true");
    await email.pressSequentially("example.com");
    await page.locator(`#${FORM}-email-error`).waitFor({ state: "detached" });
    expect(await email.getAttribute("aria-invalid")).toBeNull();
    expect(await email.getAttribute("aria-describedby")).toBeNull();
    await context.close();
  });

  it("works without JavaScript: a plain post, the server's thank-you page, and the mail", async () => {
    const { context, page, posts } = await visitContact(site, { javaScriptEnabled: false });
    await fillIn(page, {
      name: "Katherine Johnson",
      email: "katherine@example.com",
      message: "Hello from a browser without JavaScript (plain post).",
    });
    await field(page, "country").selectOption("DE");
    await field(page, "phone").fill("030 1234567");
    await Promise.all([
      page.waitForURL(/\/api\/contact\/sent/),
      page.getByRole("button", { name: "Send message" }).click(),
    ]);
    expect(await page.locator("h1").textContent()).toBe("Thank you");
    expect(await page.locator("body").textContent()).toContain("Your message has been sent.");
    expect(posts[0]).toBe("POST");

    const mail = await site.waitForMail("(plain post)");
    expect(mail.raw).toContain("+49301234567");
    expect(mail.raw).toContain("Katherine Johnson");
    await context.close();
  }, 30_000);
});

describe.skipIf(!hasChromium)("the contact form when the server says no", () => {
  let site: SiteFixture;

  siteInBrowser({ rateLimit: 1 }, (fixture) => {
    ({ site, browser } = fixture);
  });

  it("keeps what was typed and says when to try again after the rate limit", async () => {
    const { context, page } = await visitContact(site);
    const send = async (message: string) => {
      await fillIn(page, { name: "Ada Lovelace", email: "ada@example.com", message });
      const response = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/contact");
      await page.getByRole("button", { name: "Send message" }).click();
      return (await response).status();
    };
    expect(await send("The first message (rate limit).")).toBe(202);
    await expect.poll(() => page.locator(".contact-form__status").textContent()).toBe(SUCCESS);
    expect(await send("The second message, over the limit.")).toBe(429);
    await expect
      .poll(() => page.locator(".contact-form__status").textContent())
      .toMatch(/^Too many messages .* try again in \d+ minutes?; your message is still here\.$/);
    expect(await field(page, "message").inputValue()).toBe("The second message, over the limit.");
    expect(await field(page, "name").inputValue()).toBe("Ada Lovelace");
    await context.close();
  }, 30_000);

  it("shows the server's field errors inline when it refuses what the browser accepted", async () => {
    // A deploy between the page load and the send can make the server's rules stricter than the
    // page's: the browser's check passes, the real server answers 400 with field errors. Here the
    // request is changed on its way (the email emptied); the answer is the server's own.
    const { context, page, problems } = await visitContact(site);
    await page.route("**/api/contact", async (route) => {
      const sent = JSON.parse(route.request().postData() ?? "{}") as Record<string, unknown>;
      await route.continue({ postData: JSON.stringify({ ...sent, email: "" }) });
    });
    await fillIn(page, {
      name: "Grace Hopper",
      email: "grace@example.com",
      message: "Refused by the server.",
    });
    const response = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/contact");
    await page.getByRole("button", { name: "Send message" }).click();
    expect((await response).status()).toBe(400);

    const error = page.locator(`#${FORM}-email-error`);
    await error.waitFor();
    expect(await error.textContent()).toMatch(/email/i);
    expect(await field(page, "email").getAttribute("aria-invalid")).toBe("true");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("email");
    expect(await page.locator(".contact-form__status").textContent()).toBe(
      "Please correct the highlighted fields.",
    );
    // Nothing typed is lost.
    expect(await field(page, "message").inputValue()).toBe("Refused by the server.");
    expect(await field(page, "email").inputValue()).toBe("grace@example.com");
    expect(problems.filter((p) => !p.includes("400"))).toEqual([]);
    await context.close();
  }, 30_000);

  it("says the message could not be taken when the queue is down, and keeps it", async () => {
    // The same site served again, its contact queue on a port where no Redis listens: a real 503.
    const url = await site.serveAgain({ contactRedisUrl: "redis://127.0.0.1:1" });
    const { context, page, problems } = await visitContact({ ...site, url });
    await fillIn(page, {
      name: "Ada Lovelace",
      email: "ada@example.com",
      message: "Sent while Redis is down.",
    });
    const response = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/contact");
    await page.getByRole("button", { name: "Send message" }).click();
    expect((await response).status()).toBe(503);
    await expect
      .poll(() => page.locator(".contact-form__status").textContent())
      .toBe(
        "We could not take your message just now. Please try again in a minute; your message is still here.",
      );
    expect(await field(page, "message").inputValue()).toBe("Sent while Redis is down.");
    expect(await field(page, "name").inputValue()).toBe("Ada Lovelace");
    // The button works again for the retry.
    expect(await page.getByRole("button", { name: "Send message" }).isDisabled()).toBe(false);
    expect(problems.filter((p) => !p.includes("503"))).toEqual([]);
    await context.close();
  }, 30_000);
});
