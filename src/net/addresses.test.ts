// Which clients the per-address bound counts as one: a table of addresses and their keys.
import { describe, expect, it } from "vitest";
import { addressKey } from "./index.js";

describe("addressKey", () => {
  it.each([
    // Loopback, in every form a socket reports it: not counted.
    ["127.0.0.1", null],
    ["127.200.3.4", null],
    ["::1", null],
    ["::ffff:127.0.0.1", null],
    [undefined, null],
    ["", null],
    // IPv4, plain or IPv4-mapped: the address.
    ["192.0.2.7", "192.0.2.7"],
    ["::ffff:192.0.2.7", "192.0.2.7"],
    ["::ffff:c000:207", "192.0.2.7"],
    ["128.0.0.1", "128.0.0.1"],
    // IPv6: its /64, however the address is written.
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8:1:2::9", "2001:db8:1:2::/64"],
    ["2001:DB8:1:2:ffff::", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["2001:db8:0:0:1::", "2001:db8:0:0::/64"],
    ["::2", "0:0:0:0::/64"],
    ["64:ff9b::192.0.2.7", "64:ff9b:0:0::/64"],
    // Link-local: every host of the link shares its /64, so the whole address (zone left out).
    ["fe80::1%eth0", "fe80:0:0:0:0:0:0:1"],
    ["fe80::2", "fe80:0:0:0:0:0:0:2"],
  ])("%s -> %s", (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});
