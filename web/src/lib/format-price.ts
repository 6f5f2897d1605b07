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
    format = new Intl.NumberFormat("en-US", {
      style: "currency",
      currency,
      ...(whole ? { minimumFractionDigits: 0, maximumFractionDigits: 0 } : {}),
    });
    formatters.set(key, format);
  }
  return format.format(amount);
}
