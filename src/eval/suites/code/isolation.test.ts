import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileTempDir } from "../../../../test/cleanup.js";
import { confinePrefix, rootLayout } from "./isolation.js";

const root = fileTempDir("spade-isolation-test-");
const usr = join(root, "usr");
const bin = join(root, "bin");
await mkdir(join(usr, "bin"), { recursive: true });
await symlink("usr/bin", bin);

describe("rootLayout", () => {
  it("binds directories, keeps symlinks, skips what is missing or already held", () => {
    const pyenv = join(root, "home", "u", ".pyenv", "versions", "3.11");
    expect(
      rootLayout(
        [join(usr, "bin"), pyenv, join(pyenv, "bin"), pyenv],
        [usr, bin, join(root, "lib64")],
      ),
    ).toEqual([
      { kind: "bind", path: usr },
      { kind: "link", path: bin, target: "usr/bin" },
      { kind: "bind", path: pyenv },
    ]);
  });

  it("does not take a sibling with a common prefix as held", () => {
    expect(rootLayout([`${usr}2`], [usr])).toEqual([
      { kind: "bind", path: usr },
      { kind: "bind", path: `${usr}2` },
    ]);
  });
});

describe("confinePrefix", () => {
  it("runs the interpreter on the limits, whose user namespace it is, and the layout as triplets", () => {
    const argv = confinePrefix("/usr/bin/python3", true, 16, 64, [
      { kind: "bind", path: "/usr" },
      { kind: "link", path: "/bin", target: "usr/bin" },
    ]);
    expect(argv.slice(0, 5)).toEqual(["/usr/bin/python3", "-I", "-S", "-B", "-c"]);
    expect(argv.slice(6)).toEqual([
      "16",
      "64",
      "own",
      "2",
      "bind",
      "/usr",
      "-",
      "link",
      "/bin",
      "usr/bin",
    ]);
    expect(confinePrefix("python3", false, 1, 2, []).slice(6)).toEqual(["1", "2", "host", "0"]);
  });
});
