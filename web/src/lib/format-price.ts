const formatters = new Map<string, Intl.NumberFormat>();

/**
 * A price in the list's currency, US English conventions ("$1,200", "€45.50").
 * Whole amounts drop the cents. Formatters are cached: building one costs far
 * more than formatting with it, and a build formats thousands of prices.
 */
export function formatPrice(amount: number, currency: string): string {
  const whole = Number.isInteger(amount);
  const key = `${currency}|${whole}`;
  let format = formatters.get(key);
  if (!format) {
    try {
      format = new Intl.NumberFormat("en-US", {
        style: "currency",
        currency,
        ...(whole ? { minimumFractionDigits: 0, maximumFractionDigits: 0 } : {}),
      });
    } catch {
      // Not an ISO 4217 code (an option an earlier model offered, or a typo): the amount and the text as given.
      const plain = new Intl.NumberFormat("en-US", whole ? {} : { minimumFractionDigits: 2 });
      return `${plain.format(amount)} ${currency}`.trim();
    }
    formatters.set(key, format);
  }
  return format.format(amount);
}
