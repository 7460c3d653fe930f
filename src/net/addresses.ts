/**
 * @module net/addresses
 * Which clients count as one for the per-address bound on connections (net/limits.ts): an IPv4
 * address, or an IPv6 address's /64, since one host is usually given a whole /64 and could
 * otherwise open each connection from a new address of it. Not the dashboard's `isLoopback`,
 * which reads host names in requests.
 *
 * Loopback clients are not counted. They all share one address, so a bound on it cannot keep one
 * local client from crowding out another, only lower the total for all of them together: the tau2
 * shim's one client (litellm, which opens a connection per request in flight, 64 at `--concurrency
 * 64`), a local trainer's sessions, a reverse proxy on the same machine relaying every client.
 * The total cap still holds for them.
 */
import { BlockList, isIPv4 } from "node:net";

/** 127.0.0.0/8 and ::1; BlockList also matches their IPv4-mapped forms (::ffff:127.0.0.1). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/**
 * The key a client's connections are counted under: its IPv4 address (an IPv4-mapped IPv6 one
 * read as IPv4), the /64 of its IPv6 address (`2001:db8:1:2::/64`; a link-local address, whose
 * /64 every host of the link shares, whole), or null, not counted: a loopback address, or none
 * (a socket already closed).
 */
export function addressKey(address: string | undefined): string | null {
  if (!address) return null;
  if (isIPv4(address)) return LOOPBACK.check(address, "ipv4") ? null : address;
  if (LOOPBACK.check(address, "ipv6")) return null;
  const groups = ipv6Groups(address.replace(/%.*$/, ""));
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
  }
  const hex = groups.map((g) => g.toString(16));
  if (((groups[0] ?? 0) & 0xffc0) === 0xfe80) return hex.join(":");
  return `${hex.slice(0, 4).join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail as two groups). */
function ipv6Groups(address: string): number[] {
  const parts = (text: string): number[] =>
    text === ""
      ? []
      : text.split(":").flatMap((part) => {
          if (!part.includes(".")) return [Number.parseInt(part, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = part.split(".").map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = "", tail] = address.toLowerCase().split("::");
  if (tail === undefined) return parts(head);
  const before = parts(head);
  const after = parts(tail);
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}
