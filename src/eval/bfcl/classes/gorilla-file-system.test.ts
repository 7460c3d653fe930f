import { describe, expect, it } from "vitest";
import { BfclSession } from "../session.js";
import { doubledTree } from "../testing/doubled-tree.js";

/** A file system whose `d` holds 2^doublings paths to one 3-byte file (testing/doubled-tree.ts). */
const doubled = (doublings: number) => doubledTree(new BfclSession(), doublings, "abc");

describe("GorillaFileSystem over a tree of shared subdirectories", () => {
  it("finds every path of a small one, as upstream lists them", () => {
    expect(doubled(2).executeString("find(path='.', name='f')")).toBe(
      '{"matches": ["./d/f", "./d/e0/f", "./d/e1/f", "./d/e1/e0/f"]}',
    );
  });

  it("stops find past 100,000 entries with an error instead of listing 2^n paths", () => {
    // 2^21 paths took 16 s and 2.7 GB before the bound.
    expect(doubled(40).executeString("find(path='.', name='f')")).toBe(
      '{"error": "find: more than 100000 entries to search; this port stops there"}',
    );
  });

  it("sums du exactly in time linear in the nodes, not the paths", () => {
    // 2^24 paths took 2.4 s before each shared directory was summed once; 2^60 would never end.
    const instances = doubled(60);
    expect(instances.executeString("du()")).toBe('{"disk_usage": "3458764513820540928 bytes"}');
    expect(instances.executeString("du(human_readable=True)")).toBe('{"disk_usage": "3072.00 PB"}');
    expect(doubled(40).executeString("du(human_readable=True)")).toBe('{"disk_usage": "3.00 TB"}');
  });
});
