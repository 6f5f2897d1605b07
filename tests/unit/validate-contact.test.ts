import { describe, expect, it } from "vitest";
import { type ContactFields, checkContactFields } from "#contact/contact-rules.ts";
import { checkPhone, validateContact } from "#contact/validate-contact.ts";
import { countryOptions, formatPhoneInput } from "#web/browser/phone.ts";

const good = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  phone: "",
  message: "Hello, I would like a quote.",
  consent: "on",
  website: "",
  default_country: "GB",
};

describe("validateContact", () => {
  it("accepts a good message, trimmed, with no phone", () => {
    expect(validateContact({ ...good, name: "  Ada Lovelace " })).toEqual({
      ok: true,
      trapped: false,
      value: { name: "Ada Lovelace", email: "ada@example.com", phone: null, message: good.message },
    });
  });

  it("accepts consent as true from JSON and normalizes CRLF in the message", () => {
    const result = validateContact({ ...good, consent: true, message: "one\r\ntwo" });
    expect(result.ok && !result.trapped && result.value.message).toBe("one\ntwo");
  });

  it("treats a filled honeypot as trapped, whatever else was sent", () => {
    expect(validateContact({ website: "http://spam.example" })).toEqual({ ok: true, trapped: true });
  });

  const refused: [string, Record<string, unknown>, string, RegExp][] = [
    ["empty name", { name: " " }, "name", /enter your name/],
    ["long name", { name: "x".repeat(201) }, "name", /200 characters/],
    ["CR/LF in the name", { name: "Ada\r\nBcc: victim@example.com" }, "name", /one line/],
    ["a control character in the name", { name: "Ada\u0007" }, "name", /one line/],
    ["a line separator in the name", { name: "Ada\u2028Bcc" }, "name", /one line/],
    ["empty email", { email: "" }, "email", /enter your email/],
    ["email without domain", { email: "ada@" }, "email", /valid email/],
    ["email without dot", { email: "ada@localhost" }, "email", /valid email/],
    ["email with LF", { email: "ada@example.com\nBcc: x@y.z" }, "email", /valid email/],
    ["email with a space", { email: "ada lovelace@example.com" }, "email", /valid email/],
    ["email too long", { email: `${"a".repeat(60)}@${"b".repeat(200)}.com` }, "email", /valid email/],
    ["empty message", { message: "\n " }, "message", /enter a message/],
    ["long message", { message: "x".repeat(5001) }, "message", /5000 characters/],
    ["a NUL in the message", { message: "hi\u0000" }, "message", /cannot be sent/],
    ["no consent", { consent: undefined }, "consent", /agree/],
    ["consent off", { consent: "off" }, "consent", /agree/],
    ["a bad phone for the country", { phone: "12345" }, "phone", /United Kingdom/],
    ["letters in the phone", { phone: "call me" }, "phone", /digits/],
    [
      "a national phone without country",
      { phone: "020 7946 0958", default_country: "" },
      "phone",
      /country code/,
    ],
    ["a number where text belongs", { name: 42 }, "name", /text/],
  ];
  it.each(refused)("refuses %s", (_label, change, field, message) => {
    const result = validateContact({ ...good, ...change });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors)).toEqual([field]);
    expect(result.errors[field as keyof typeof result.errors]).toMatch(message);
  });

  it("reports every bad field at once", () => {
    const result = validateContact({});
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(Object.keys(result.errors).sort()).toEqual(["consent", "email", "message", "name"]);
  });
});

describe("checkPhone", () => {
  const cases: [string, string, string | null | RegExp][] = [
    ["", "GB", null],
    ["020 7946 0958", "GB", "+442079460958"],
    ["+44 20 7946 0958", "", "+442079460958"],
    ["0044 20 7946 0958", "", "+442079460958"],
    ["(201) 555-0123", "US", "+12015550123"],
    ["030 1234567", "DE", "+49301234567"],
    ["+49 30 1234567", "FR", "+49301234567"],
    ["07400 123456", "GB", "+447400123456"],
    ["555-0123", "US", /valid phone number for United States/],
    ["1", "DE", /./],
    ["1234567890123456789012", "DE", /too long/],
    ["+44 20 7946", "", /not a valid phone number/],
    ["020 7946 0958", "ZZ", /country code/],
  ];
  it.each(cases)("%s in %s", (phone, country, expected) => {
    const result = checkPhone(phone, country);
    if (expected === null || typeof expected === "string")
      expect(result).toEqual({ ok: true, e164: expected });
    else {
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toMatch(expected);
    }
  });
});

describe("the browser's copy of the rules", () => {
  it("checkContactFields (what the island runs) agrees with validateContact (what the server runs)", () => {
    const inputs: Record<string, unknown>[] = [
      good,
      { ...good, phone: "12345" },
      { ...good, phone: "+44 20 7946 0958", default_country: "US" },
      { ...good, name: "", email: "x", message: "", consent: false },
      { ...good, message: "one\r\ntwo", consent: true },
    ];
    for (const input of inputs) {
      const server = validateContact(input);
      const browser = checkContactFields({ ...good, ...input } as ContactFields);
      if (browser.ok) expect(server).toEqual({ ok: true, trapped: false, value: browser.value });
      else expect(server).toEqual(browser);
    }
  });

  it("formats a number once it is complete, and leaves anything else as typed", () => {
    expect(formatPhoneInput("2079460958", "GB")).toBe("020 7946 0958");
    expect(formatPhoneInput("5035550142", "US")).toBe("(503) 555-0142");
    expect(formatPhoneInput("+442079460958", "US")).toBe("+44 20 7946 0958");
    expect(formatPhoneInput("207946", "GB")).toBe("207946");
    expect(formatPhoneInput("call me", "GB")).toBe("call me");
    expect(formatPhoneInput("", "GB")).toBe("");
  });

  it("names every country the phone rules know, sorted, with its calling code", () => {
    const options = countryOptions();
    expect(options).toContainEqual({ code: "GB", label: "United Kingdom (+44)" });
    expect(options.map((o) => o.code)).toEqual(expect.arrayContaining(["US", "DE", "FR", "JP"]));
    const labels = options.map((o) => o.label);
    expect(labels).toEqual([...labels].sort((a, b) => a.localeCompare(b, "en")));
  });
});
