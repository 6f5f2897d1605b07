import { describe, expect, it } from "vitest";
import { rateKeyFor } from "#site/client-address.ts";

describe("rateKeyFor: one key per client, only for real addresses", () => {
  it.each<[string | undefined, string | undefined]>([
    ["198.51.100.7", "198.51.100.7"],
    ["198.51.100.7:52311", "198.51.100.7"],
    [" 198.51.100.7 ", "198.51.100.7"],
    ["::ffff:198.51.100.7", "198.51.100.7"],
    ["::FFFF:198.51.100.7", "198.51.100.7"],
    ["[::ffff:198.51.100.7]:443", "198.51.100.7"],
    ["::ffff:c633:6407", "198.51.100.7"],
    ["0:0:0:0:0:ffff:198.51.100.7", "198.51.100.7"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002::1", "2001:db8:1:2::/64"],
    ["[2001:db8:1:2::1]", "2001:db8:1:2::/64"],
    ["[2001:db8:1:2::1]:8443", "2001:db8:1:2::/64"],
    ["2001:DB8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["hello", undefined],
    ["unknown", undefined],
    ["198.51.100.7, 10.0.0.1", undefined],
    ["999.1.1.1", undefined],
    ["1.2.3", undefined],
    ["a".repeat(200), undefined],
    ["prefix:*", undefined],
    ["", undefined],
    [undefined, undefined],
  ])("%j → %j", (address, key) => {
    expect(rateKeyFor(address)).toBe(key);
  });
});
