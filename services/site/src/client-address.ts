import { isIP } from "node:net";

/**
 * The rate limit's key for a client address, or undefined when it is no IP address. The address
 * comes from the socket or, behind a trusted proxy, from X-Forwarded-For, which a client can fill
 * with anything: only a real address may become a Redis key, and one client must not get many
 * keys by spelling its address differently.
 * - `1.2.3.4:5678`, `[2001:db8::1]:443`, `[2001:db8::1]`: ports and brackets go;
 * - `::ffff:1.2.3.4` (and `::ffff:102:304`) is the IPv4 client 1.2.3.4;
 * - `fe80::1%eth0`: the zone goes;
 * - IPv6 counts per /64: one subscriber usually holds a whole /64, so a client could otherwise
 *   take a fresh address for every message.
 */
export function rateKeyFor(address: string | undefined): string | undefined {
  if (typeof address !== "string" || address.length === 0 || address.length > 100) return undefined;
  let value = address.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) value = bracketed[1] as string;
  else if (/^[\d.]+:\d{1,5}$/.test(value)) value = value.slice(0, value.lastIndexOf(":"));
  value = value.replace(/%[\w.-]+$/, "").toLowerCase();
  if (isIP(value) === 4) return value;
  if (isIP(value) !== 6) return undefined;
  const groups = expandIPv6(value);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6] as number, groups[7] as number];
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** Eight 16-bit groups of a valid IPv6 address (isIP said so), embedded IPv4 tail included. */
function expandIPv6(address: string): number[] {
  let text = address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? (text.split("::") as [string, string]) : [text, undefined];
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
}
