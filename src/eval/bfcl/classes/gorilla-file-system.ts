/**
 * @module eval/bfcl/classes/gorilla-file-system
 * Port of upstream's `GorillaFileSystem` (gorilla_file_system.py at the pinned commit): a toy
 * file system with one-level `cd`, and Python's quirks kept (shared `contents` after mv/cp,
 * `tail` with 0 lines showing everything, long-context padding files).
 */
import * as py from "../../python/index.js";
import type { PyDict, PyValue } from "../../python/index.js";
import { methodTable, opt, req, type BfclApi } from "../api.js";
import { FsDirectory, FsFile, type FsNode } from "../fs-nodes.js";
import type { BfclSession } from "../session.js";

const INVALID_NAME_CHARS = '|/\\?%*:"><';

/**
 * Entries one `find` walks before it answers an error instead. cp shares subdirectories, so a
 * few dozen calls make a tree of 2^n paths: listing 2^21 of them took 16 s and 2.7 GB (upstream
 * would take as long). Upstream's scenarios hold tens of entries.
 */
const MAX_FIND_VISITS = 100_000;

/** A str argument, or the TypeError Python raises at its first string operation. */
function nameArg(v: PyValue): string {
  if (typeof v === "string") return v;
  if (v === null || typeof v !== "object")
    throw py.typeError(`argument of type '${py.pyTypeName(v)}' is not iterable`);
  throw py.typeError(`unhashable type: '${py.pyTypeName(v)}'`);
}

/** A str used with a method (`folder.rstrip`): AttributeError otherwise. */
function strFor(v: PyValue, method: string): string {
  if (typeof v !== "string") throw py.attributeError(v, method);
  return v;
}

/** Content read from a file for a str operation (`splitlines`, `split`). */
function textOf(file: FsFile, method: string): string {
  return strFor(file.content, method);
}

/** Port of upstream's GorillaFileSystem. */
export class GorillaFileSystem implements BfclApi {
  readonly className = "GorillaFileSystem";
  longContext = false;
  root: FsDirectory = new FsDirectory("/", null);
  private currentDir: FsDirectory = this.root;

  constructor(private readonly session: BfclSession) {}

  loadScenario(scenario: PyDict, longContext: boolean): void {
    this.longContext = longContext;
    this.root = new FsDirectory("/", null);
    const rootSpec = scenario.get("root");
    if (py.isDict(rootSpec)) {
      const [rootName, rootData] = [...rootSpec][0]!;
      const rootDir = new FsDirectory(String(rootName), null);
      this.root = this.loadDirectory((rootData as PyDict).get("contents") as PyDict, rootDir);
    }
    this.currentDir = this.root;
  }

  private loadDirectory(current: PyDict, parent: FsDirectory): FsDirectory {
    let bottommost = true;
    const tailUsed = this.longContext
      ? (this.session.longContextValue("FILES_TAIL_USED") as string[])
      : [];
    for (const [key, data] of current) {
      const name = String(key);
      const spec = data as PyDict;
      if (spec.get("type") === "directory") {
        bottommost = false;
        const dir = this.loadDirectory(
          spec.get("contents") as PyDict,
          new FsDirectory(name, parent),
        );
        parent.contents.set(name, dir);
      } else if (spec.get("type") === "file") {
        let content = spec.get("content") as PyValue;
        if (this.longContext && !tailUsed.includes(name)) {
          content =
            (content as string) +
            (this.session.longContextValue("FILE_CONTENT_EXTENSION") as string);
        }
        parent.contents.set(name, new FsFile(name, content));
      }
    }
    if (bottommost && this.longContext) {
      for (const fileName of this.session.longContextValue("POPULATE_FILE_EXTENSION") as string[]) {
        parent.addFile(fileName);
      }
    }
    return parent;
  }

  publicState(): Array<[string, PyValue]> {
    return [
      ["long_context", this.longContext],
      ["root", this.root],
    ];
  }

  private navigate(path: string | null): FsDirectory | PyDict {
    if (path === null || path === ".") return this.currentDir;
    if (path === "/") return this.root;
    let dir = path.startsWith("/") ? this.root : this.currentDir;
    for (const name of py.strip(path, "/").split("/")) {
      const next = dir.getItem(name);
      if (!(next instanceof FsDirectory))
        return py.pyDict({ error: `cd: '${path}': No such file or directory` });
      dir = next;
    }
    return dir;
  }

  private isInvalidName(name: string): boolean {
    return [...INVALID_NAME_CHARS].some((c) => name.includes(c));
  }

  /**
   * mkdir's and touch's body: `add` the entry named by `arg` to the current directory, unless the
   * name has an invalid character or is taken (upstream's errors, after `cannot`).
   */
  private addEntry(arg: PyValue, cannot: string, add: (name: string) => void): PyValue {
    const name = nameArg(arg);
    if (this.isInvalidName(name))
      return py.pyDict({ error: `${cannot} '${name}': Invalid character` });
    if (this.currentDir.contents.has(name))
      return py.pyDict({ error: `${cannot} '${name}': File exists` });
    add(name);
    return null;
  }

  private localFile(fileName: PyValue): FsFile | undefined {
    if (typeof fileName !== "string") {
      if (fileName !== null && typeof fileName === "object")
        throw py.typeError(`unhashable type: '${py.pyTypeName(fileName)}'`);
      return undefined;
    }
    const item = this.currentDir.contents.has(fileName)
      ? this.currentDir.getItem(fileName)
      : undefined;
    return item instanceof FsFile ? item : undefined;
  }

  readonly methods = methodTable([
    [
      "pwd",
      [],
      () => {
        const names: string[] = [];
        for (let dir: FsDirectory | null = this.currentDir; dir !== null; dir = dir.parent)
          names.push(dir.name);
        return py.pyDict({ current_working_directory: "/" + names.reverse().join("/") });
      },
    ],
    [
      "ls",
      [opt("a", false)],
      ({ a }) => {
        let contents = [...this.currentDir.contents.keys()];
        if (!py.truthy(a!)) contents = contents.filter((n) => !n.startsWith("."));
        return py.pyDict({ current_directory_content: contents });
      },
    ],
    [
      "cd",
      [req("folder")],
      ({ folder }) => {
        let target = py.rstrip(strFor(folder!, "rstrip"), "/");
        if (target === "") target = "/";
        if (![".", "..", "/"].includes(target) && target.includes("/")) {
          return py.pyDict({
            error: `cd: ${target}: Unsupported path. Only one folder level at a time is supported.`,
          });
        }
        if (target === "..") {
          if (this.currentDir.parent) this.currentDir = this.currentDir.parent;
          else if (this.root.pyEquals(this.currentDir))
            return py.pyDict({ error: "Current directory is already the root. Cannot go back." });
          else return py.pyDict({ error: "cd: ..: No such directory" });
          return new Map();
        }
        const dir = this.navigate(target);
        if (!(dir instanceof FsDirectory)) return dir;
        this.currentDir = dir;
        return py.pyDict({ current_working_directory: dir.name });
      },
    ],
    [
      "mkdir",
      [req("dir_name")],
      ({ dir_name }) =>
        this.addEntry(dir_name!, "mkdir: cannot create directory", (name) =>
          this.currentDir.addDirectory(name),
        ),
    ],
    [
      "touch",
      [req("file_name")],
      ({ file_name }) =>
        this.addEntry(file_name!, "touch: cannot touch", (name) => this.currentDir.addFile(name)),
    ],
    [
      "echo",
      [req("content"), opt("file_name", null)],
      ({ content, file_name }) => {
        if (file_name === null) return py.pyDict({ terminal_output: content! });
        const name = nameArg(file_name!);
        if (this.isInvalidName(name))
          return py.pyDict({ error: `echo: cannot write to '${name}': Invalid character` });
        if (name === "") return py.pyDict({ terminal_output: content! });
        const item = this.currentDir.contents.get(name);
        if (item === undefined)
          return py.pyDict({ error: `echo: cannot write to '${name}': No such file` });
        if (!(item instanceof FsFile)) throw py.attributeError(item, "_write");
        item.content = content!;
        return null;
      },
    ],
    [
      "cat",
      [req("file_name")],
      ({ file_name }) => {
        const name = nameArg(file_name!);
        if (this.isInvalidName(name))
          return py.pyDict({ error: `cat: '${name}': Invalid character` });
        const item = this.currentDir.contents.get(name);
        if (item === undefined)
          return py.pyDict({ error: `cat: '${name}': No such file or directory` });
        if (item instanceof FsFile) return py.pyDict({ file_content: item.content });
        return py.pyDict({ error: `cat: '${name}': Is a directory` });
      },
    ],
    [
      "find",
      [opt("path", "."), opt("name", null)],
      ({ path, name }) => {
        const target = this.navigate(path === null ? null : strFor(path!, "strip"));
        if (!(target instanceof FsDirectory)) {
          const msg = target.get("error") as string;
          return msg.startsWith("cd:") ? py.pyDict({ error: msg.replace("cd:", "find:") }) : target;
        }
        const needle = name === null ? null : nameArg(name!);
        const matches: string[] = [];
        let visits = 0;
        const search = (dir: FsDirectory, base: string): boolean => {
          for (const [itemName, item] of dir.contents) {
            if (++visits > MAX_FIND_VISITS) return false;
            const itemPath = `${base}/${itemName}`;
            if (needle === null || itemName.includes(needle)) matches.push(itemPath);
            if (item instanceof FsDirectory && !search(item, itemPath)) return false;
          }
          return true;
        };
        if (!search(target, py.rstrip(strFor(path!, "rstrip"), "/"))) {
          return py.pyDict({
            error: `find: more than ${MAX_FIND_VISITS} entries to search; this port stops there`,
          });
        }
        return py.pyDict({ matches });
      },
    ],
    [
      "wc",
      [req("file_name"), opt("mode", "l")],
      ({ file_name, mode }) => {
        if (!["l", "w", "c"].includes(mode as string))
          return py.pyDict({ error: `wc: invalid mode '${py.pyStr(mode!)}'` });
        const file = this.localFile(file_name!);
        if (!file)
          return py.pyDict({ error: `wc: ${py.pyStr(file_name!)}: No such file or directory` });
        if (mode === "l")
          return py.pyDict({
            count: BigInt(py.splitlines(textOf(file, "splitlines")).length),
            type: "lines",
          });
        if (mode === "w")
          return py.pyDict({
            count: BigInt(py.splitWhitespace(textOf(file, "split")).length),
            type: "words",
          });
        return py.pyDict({ count: py.pyLen(file.content), type: "characters" });
      },
    ],
    [
      "sort",
      [req("file_name")],
      ({ file_name }) => {
        const file = this.localFile(file_name!);
        if (!file)
          return py.pyDict({ error: `sort: ${py.pyStr(file_name!)}: No such file or directory` });
        return py.pyDict({
          sorted_content: py.sortedStrings(py.splitlines(textOf(file, "splitlines"))).join("\n"),
        });
      },
    ],
    [
      "grep",
      [req("file_name"), req("pattern")],
      ({ file_name, pattern }) => {
        const file = this.localFile(file_name!);
        if (!file)
          return py.pyDict({ error: `grep: ${py.pyStr(file_name!)}: No such file or directory` });
        const lines = py.splitlines(textOf(file, "splitlines"));
        if (typeof pattern !== "string") {
          if (lines.length === 0) return py.pyDict({ matching_lines: [] });
          throw py.typeError(
            `'in <string>' requires string as left operand, not ${py.pyTypeName(pattern!)}`,
          );
        }
        return py.pyDict({ matching_lines: lines.filter((line) => line.includes(pattern)) });
      },
    ],
    [
      "du",
      [opt("human_readable", false)],
      ({ human_readable }) => {
        // cp shares subdirectories, so a few dozen calls make 2^n paths over a few nodes: each
        // contents map is summed once (the same total, in time linear in the nodes), exactly.
        const sizes = new Map<Map<string, FsNode>, bigint>();
        const size = (item: FsNode): bigint => {
          if (item instanceof FsFile) {
            if (typeof item.content !== "string") throw py.attributeError(item.content, "encode");
            return BigInt(py.utf8Length(item.content));
          }
          const known = sizes.get(item.contents);
          if (known !== undefined) return known;
          let sum = 0n;
          for (const child of item.contents.values()) sum += size(child);
          sizes.set(item.contents, sum);
          return sum;
        };
        const total = size(this.currentDir);
        if (!py.truthy(human_readable!)) return py.pyDict({ disk_usage: `${total} bytes` });
        let value: bigint | number = total;
        for (const unit of ["B", "KB", "MB", "GB", "TB"]) {
          if (value < 1024)
            return py.pyDict({ disk_usage: `${py.formatFixed(Number(value), 2)} ${unit}` });
          value = py.pyTrueDiv(value, 1024n);
        }
        return py.pyDict({ disk_usage: `${py.formatFixed(Number(value), 2)} PB` });
      },
    ],
    [
      "tail",
      [req("file_name"), opt("lines", 10n)],
      ({ file_name, lines }) => {
        const file = this.localFile(file_name!);
        if (!file)
          return py.pyDict({ error: `tail: ${py.pyStr(file_name!)}: No such file or directory` });
        const content = py.splitlines(textOf(file, "splitlines"));
        const n = tailCount(lines!, content.length);
        // content[-n:] in Python: -0 is 0, so zero lines shows every line.
        const start = n > 0 ? content.length - n : Math.min(-n, content.length);
        return py.pyDict({ last_lines: content.slice(start).join("\n") });
      },
    ],
    [
      "diff",
      [req("file_name1"), req("file_name2")],
      ({ file_name1, file_name2 }) => {
        const f1 = this.localFile(file_name1!);
        const f2 = this.localFile(file_name2!);
        const bothPresent =
          typeof file_name1 === "string" &&
          typeof file_name2 === "string" &&
          this.currentDir.contents.has(file_name1) &&
          this.currentDir.contents.has(file_name2);
        if (!bothPresent || !f1 || !f2) {
          return py.pyDict({
            error: `diff: ${py.pyStr(file_name1!)} or ${py.pyStr(file_name2!)}: No such file or directory`,
          });
        }
        const a = py.splitlines(textOf(f1, "splitlines"));
        const b = py.splitlines(textOf(f2, "splitlines"));
        const out: string[] = [];
        for (let i = 0; i < Math.min(a.length, b.length); i++)
          if (a[i] !== b[i]) out.push(`- ${a[i]}\n+ ${b[i]}`);
        return py.pyDict({ diff_lines: out.join("\n") });
      },
    ],
    [
      "mv",
      [req("source"), req("destination")],
      ({ source, destination }) => this.moveOrCopy("mv", source!, destination!),
    ],
    [
      "cp",
      [req("source"), req("destination")],
      ({ source, destination }) => this.moveOrCopy("cp", source!, destination!),
    ],
    ["rm", [req("file_name")], ({ file_name }) => this.remove("rm", file_name!, () => null)],
    [
      "rmdir",
      [req("dir_name")],
      ({ dir_name }) =>
        this.remove("rmdir", dir_name!, (item) => {
          if (!(item instanceof FsDirectory)) return "Not a directory";
          return item.contents.size > 0 ? "Directory not empty" : null;
        }),
    ],
  ]);

  /**
   * `rm` and `rmdir`: removes the entry `given` of the current directory unless it is absent or
   * `refuse` gives a reason (the error's tail) for the entry.
   */
  private remove(
    op: "rm" | "rmdir",
    given: PyValue,
    refuse: (item: FsNode | undefined) => string | null,
  ): PyDict {
    const name = hashableName(given);
    if (name === undefined || !this.currentDir.contents.has(name))
      return py.pyDict({
        error: `${op}: cannot remove '${py.pyStr(given)}': No such file or directory`,
      });
    const reason = refuse(this.currentDir.getItem(name));
    if (reason !== null) return py.pyDict({ error: `${op}: cannot remove '${name}': ${reason}` });
    this.currentDir.contents.delete(name);
    return py.pyDict({ result: `'${name}' removed` });
  }

  /** `mv` and `cp`: same checks, different treatment of the source. */
  private moveOrCopy(op: "mv" | "cp", sourceArg: PyValue, destinationArg: PyValue): PyValue {
    const verb = op === "mv" ? "move" : "copy";
    const source = hashableName(sourceArg);
    if (source === undefined || !this.currentDir.contents.has(source)) {
      return py.pyDict({
        error: `${op}: cannot ${verb} '${py.pyStr(sourceArg)}': No such file or directory`,
      });
    }
    const item = this.currentDir.getItem(source)!;
    if (typeof destinationArg !== "string") {
      throw py.typeError(`argument of type '${py.pyTypeName(destinationArg)}' is not iterable`);
    }
    const destination = destinationArg;
    if (destination.includes("/")) {
      return py.pyDict({
        error: `${op}: path not allowed in destination. Provide only a file or directory name.`,
      });
    }
    const dir = this.currentDir;
    const destItem = dir.contents.get(destination);
    if (destItem !== undefined) {
      if (!(destItem instanceof FsDirectory)) {
        return py.pyDict({
          error: `${op}: cannot ${verb} '${source}' to '${destination}': Not a directory`,
        });
      }
      // Upstream's cp checks for "dest/source" as a key, which never exists.
      const clash = op === "mv" ? source : `${destination}/${source}`;
      if (destItem.contents.has(clash)) {
        return py.pyDict({
          error: `${op}: cannot ${verb} '${source}' to '${destination}/${source}': File exists`,
        });
      }
      if (op === "mv") dir.contents.delete(source);
      this.place(destItem, source, item, op);
      return py.pyDict({
        result: `'${source}' ${op === "mv" ? "moved" : "copied"} to '${destination}/${source}'`,
      });
    }
    if (op === "mv") dir.contents.delete(source);
    this.place(dir, destination, item, op);
    return py.pyDict({
      result: `'${source}' ${op === "mv" ? "moved" : "copied"} to '${destination}'`,
    });
  }

  /** Adds `item` under `name` in `target`: mv shares the old contents, cp a shallow copy. */
  private place(target: FsDirectory, name: string, item: FsNode, op: "mv" | "cp"): void {
    if (item instanceof FsFile) {
      target.addFile(name, item.content);
      return;
    }
    target.addDirectory(name);
    (target.contents.get(name) as FsDirectory).contents =
      op === "mv" ? item.contents : new Map(item.contents);
  }
}

/** A name usable as a dict key: str, or undefined for other hashables; unhashables raise. */
function hashableName(v: PyValue): string | undefined {
  if (typeof v === "string") return v;
  if (v !== null && typeof v === "object")
    throw py.typeError(`unhashable type: '${py.pyTypeName(v)}'`);
  return undefined;
}

/** The `lines` of `tail` after `if lines > len(content): lines = len(content)`, as a slice bound. */
function tailCount(lines: PyValue, length: number): number {
  if (typeof lines === "bigint" || typeof lines === "boolean") {
    const n = typeof lines === "boolean" ? (lines ? 1n : 0n) : lines;
    return n > BigInt(length) ? length : Number(n);
  }
  if (typeof lines === "number") {
    if (lines > length) return length;
    throw py.typeError("slice indices must be integers or None or have an __index__ method");
  }
  throw py.typeError(`'>' not supported between instances of '${py.pyTypeName(lines)}' and 'int'`);
}
