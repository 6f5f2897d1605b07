import {
  type FocusEvent,
  type FormEvent,
  type PointerEvent,
  type ReactNode,
  useEffect,
  useRef,
  useState,
} from "react";
import {
  type ContactField,
  type CountryNamer,
  checkConsent,
  checkContactFields,
  checkEmail,
  checkMessage,
  checkName,
  checkPhone,
  countryName,
  nameInLabel,
} from "#contact/contact-rules.ts";
import { type CountryOption, formatPhoneInput } from "../phone.ts";
import {
  type ContactFormIslandProps,
  type ContactFormState,
  ContactFormView,
  type FormErrors,
} from "./contact-form.tsx";

const FIELDS: ContactField[] = ["name", "email", "phone", "message", "consent"];

/**
 * The live contact form: the same rules as the server (contact-rules.ts) checked when a field
 * is left and again as it is corrected, the phone number formatted as it is typed, and the
 * form sent in place as JSON. Without JavaScript the server markup posts on its own.
 */
export default function ContactFormIsland(props: ContactFormIslandProps): ReactNode {
  // Read once, as the server rendered them, before React touches the markup it hydrates.
  const [countries] = useState(() => countriesInMarkup(props.id));
  // The phone messages name a country as the selector (and so the server) does, not as this browser's ICU would.
  const [nameOf] = useState(() => {
    const names = new Map(countries.map(({ code, label }) => [code, nameInLabel(label)]));
    return (code: string) => names.get(code) ?? countryName(code);
  });
  const formRef = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<FormErrors>({});
  const [status, setStatus] = useState<ContactFormState["status"]>(null);
  const [sending, setSending] = useState(false);
  // Set while the send button is pressed: the field being left is not checked on its own then,
  // since an error appearing above the button would move it away from under the pointer and
  // swallow the click (the send checks every field anyway).
  const pressingSend = useRef(false);

  // Our inline messages replace the browser's bubbles from now on.
  useEffect(() => {
    if (formRef.current) formRef.current.noValidate = true;
  }, []);

  const setError = (field: ContactField, error: string | undefined) =>
    setErrors((current) => {
      if (current[field] === error) return current;
      const next = { ...current };
      if (error) next[field] = error;
      else delete next[field];
      return next;
    });

  const onInput = (event: FormEvent<HTMLFormElement>) => {
    const target = event.target as EventTarget as HTMLInputElement;
    const field = target.name as ContactField;
    if (field === "phone") formatWhileTyping(target, event.nativeEvent as InputEvent);
    // A field already marked wrong is re-checked on every change, so the error goes as soon as it is fixed.
    if (errors[field] !== undefined) setError(field, check(field, event.currentTarget, nameOf));
  };

  const onChange = (event: FormEvent<HTMLFormElement>) => {
    const target = event.target as EventTarget as HTMLInputElement;
    if (target.name === "consent" && errors.consent !== undefined)
      setError("consent", check("consent", event.currentTarget, nameOf));
    if (target.name === "default_country") {
      const phone = event.currentTarget.elements.namedItem("phone") as HTMLInputElement;
      phone.value = formatPhoneInput(phone.value, target.value);
      if (phone.value !== "") setError("phone", check("phone", event.currentTarget, nameOf));
    }
  };

  const onPointerDown = (event: PointerEvent<HTMLFormElement>) => {
    pressingSend.current = (event.target as Element).closest("button[type=submit]") !== null;
  };

  const onBlur = (event: FocusEvent<HTMLFormElement>) => {
    const target = event.target as EventTarget as HTMLInputElement;
    const field = target.name as ContactField;
    if (pressingSend.current) {
      pressingSend.current = false;
      return;
    }
    if (!FIELDS.includes(field) || field === "consent") return;
    if (field === "phone") target.value = formatPhoneInput(target.value, country(event.currentTarget));
    // An empty field is only an error once the visitor tries to send.
    if (target.value.trim() !== "" || errors[field] !== undefined)
      setError(field, check(field, event.currentTarget, nameOf));
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    pressingSend.current = false;
    const form = event.currentTarget;
    if (sending) return;
    const fields = read(form);
    const result = checkContactFields(fields, nameOf);
    if (!result.ok) {
      setErrors(result.errors);
      setStatus({ kind: "error", text: "Please correct the highlighted fields." });
      focusFirstError(form, result.errors);
      return;
    }
    setErrors({});
    setSending(true);
    setStatus({ kind: "sending", text: "Sending your message…" });
    try {
      const response = await fetch(form.action, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ ...fields, website: value(form, "website") }),
      });
      const body = (await response.json().catch(() => ({}))) as {
        errors?: FormErrors;
        retryAfter?: number;
      };
      if (response.status === 202) {
        form.reset();
        setStatus({
          kind: "success",
          text: props.successMessage || "Thank you — your message has been sent.",
        });
      } else if (response.status === 400 && body.errors) {
        const { form: formError, ...fieldErrors } = body.errors;
        setErrors(fieldErrors);
        setStatus({ kind: "error", text: formError ?? "Please correct the highlighted fields." });
        focusFirstError(form, fieldErrors);
      } else if (response.status === 429) {
        const minutes = Math.max(1, Math.ceil((body.retryAfter ?? 60) / 60));
        setStatus({
          kind: "error",
          text: `Too many messages were sent from your connection. Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}; your message is still here.`,
        });
      } else {
        setStatus({
          kind: "error",
          text: "We could not take your message just now. Please try again in a minute; your message is still here.",
        });
      }
    } catch {
      setStatus({
        kind: "error",
        text: "Your message could not be sent. Please check your connection and try again.",
      });
    } finally {
      setSending(false);
    }
  };

  return (
    <ContactFormView
      {...props}
      countries={countries}
      errors={errors}
      status={status}
      sending={sending}
      formRef={formRef}
      onSubmit={onSubmit}
      onBlur={onBlur}
      onInput={onInput}
      onChange={onChange}
      onPointerDown={onPointerDown}
    />
  );
}

/**
 * The country selector's options as the server rendered them, its placeholder ("Country…", no
 * value) aside: the props script leaves the list out (contact-form.tsx `ContactFormIslandProps`).
 * The text of each option is its label exactly as React wrote it, so hydration finds the same
 * markup.
 */
function countriesInMarkup(id: string): CountryOption[] {
  const select = document.getElementById(`${id}-country`);
  if (!(select instanceof HTMLSelectElement)) return [];
  return Array.from(select.options, (option) => ({
    code: option.value,
    label: option.textContent ?? "",
  })).filter((country) => country.code !== "");
}

function value(form: HTMLFormElement, name: string): string {
  const element = form.elements.namedItem(name) as HTMLInputElement | null;
  return element?.value ?? "";
}

function country(form: HTMLFormElement): string {
  return value(form, "default_country");
}

function read(form: HTMLFormElement) {
  const consent = form.elements.namedItem("consent") as HTMLInputElement;
  return {
    name: value(form, "name"),
    email: value(form, "email"),
    phone: value(form, "phone"),
    message: value(form, "message"),
    consent: consent.checked,
    default_country: country(form),
  };
}

function check(field: ContactField, form: HTMLFormElement, nameOf: CountryNamer): string | undefined {
  const text = value(form, field);
  switch (field) {
    case "name":
      return checkName(text);
    case "email":
      return checkEmail(text);
    case "message":
      return checkMessage(text);
    case "consent":
      return checkConsent((form.elements.namedItem("consent") as HTMLInputElement).checked);
    case "phone": {
      const result = checkPhone(text, country(form), nameOf);
      return result.ok ? undefined : result.error;
    }
  }
}

function focusFirstError(form: HTMLFormElement, errors: FormErrors): void {
  const first = FIELDS.find((field) => errors[field] !== undefined);
  if (first) (form.elements.namedItem(first) as HTMLElement | null)?.focus();
}

/**
 * Formats the number while the visitor types at its end. Deleting, or typing in the middle,
 * is left alone (re-inserting a space the visitor just deleted would trap the caret); the
 * number is formatted again when the field is left.
 */
function formatWhileTyping(input: HTMLInputElement, event: InputEvent): void {
  if (event.inputType?.startsWith("delete")) return;
  if (input.selectionStart !== input.value.length) return;
  const form = input.form;
  const formatted = formatPhoneInput(input.value, form ? country(form) : "");
  if (formatted !== input.value) input.value = formatted;
}
