/**
 * @module eval/bfcl/fs-nodes
 * The `File` and `Directory` objects of upstream's GorillaFileSystem, with their Python
 * `repr` and `__eq__` (name and content / name and contents; the parent is not compared).
 */
import { pyEquals, PyObject, pyRepr, pyStr, type PyValue, valueError } from "../python/index.js";

/** A file: a name and its content (normally a str, but Python stores whatever it is given). */
export class FsFile extends PyObject {
  readonly pyTypeName = "File";
  constructor(
    public name: string,
    public content: PyValue = "",
  ) {
    super();
  }

  pyRepr(): string {
    return `<<File: ${this.name}, Content: ${pyStr(this.content)}>>`;
  }

  override pyEquals(other: PyValue): boolean {
    return (
      other instanceof FsFile && other.name === this.name && pyEquals(other.content, this.content)
    );
  }
}

/** A directory: a name, its parent (not compared) and its named entries in insertion order. */
export class FsDirectory extends PyObject {
  readonly pyTypeName = "Directory";
  /** Entries by name. Python code may hand the same Map to two directories (mv, cp share it). */
  contents = new Map<string, FsNode>();

  constructor(
    public name: string,
    public parent: FsDirectory | null = null,
  ) {
    super();
  }

  /** `_add_file`: raises ValueError when the name is taken. */
  addFile(fileName: string, content: PyValue = ""): void {
    if (this.contents.has(fileName)) {
      throw valueError(`File '${fileName}' already exists in directory '${this.name}'.`);
    }
    this.contents.set(fileName, new FsFile(fileName, content));
  }

  /** `_add_directory`: raises ValueError when the name is taken. */
  addDirectory(dirName: string): void {
    if (this.contents.has(dirName)) {
      throw valueError(`Directory '${dirName}' already exists in directory '${this.name}'.`);
    }
    this.contents.set(dirName, new FsDirectory(dirName, this));
  }

  /** `_get_item`: `.` is the directory itself. */
  getItem(name: string): FsNode | undefined {
    if (name === ".") return this;
    return this.contents.get(name);
  }

  pyRepr(): string {
    const entries = [...this.contents].map(([k, v]) => `${pyRepr(k)}: ${v.pyRepr()}`).join(", ");
    return `<Directory: ${this.name}, Parent: ${this.parent ? this.parent.name : "None"}, Contents: {${entries}}>`;
  }

  override pyEquals(other: PyValue): boolean {
    if (!(other instanceof FsDirectory) || other.name !== this.name) return false;
    if (other.contents.size !== this.contents.size) return false;
    for (const [k, v] of this.contents) {
      const o = other.contents.get(k);
      if (o === undefined || !v.pyEquals(o)) return false;
    }
    return true;
  }
}

/** A file-system entry. */
export type FsNode = FsFile | FsDirectory;
