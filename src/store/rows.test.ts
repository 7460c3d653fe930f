import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { columnName, DESIGN, ENVIRONMENT, EPISODE, SAMPLE } from "./rows.js";
import { SCHEMA_SQL } from "./schema.js";

describe("record columns", () => {
  it("name a field's column in snake_case", () => {
    expect(
      ["repairTurn", "createdStep", "failureCode", "weightsVersion", "return"].map(columnName),
    ).toEqual(["repair_turn", "created_step", "failure_code", "weights_version", "return"]);
  });

  it("cover every column of their table but environments.language (told from the code)", () => {
    const db = new Database(":memory:");
    db.exec(SCHEMA_SQL);
    const columnsOf = (table: string) =>
      (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map(
        (c) => c.name,
      );
    const fieldsAsColumns = (columns: object) => Object.keys(columns).map(columnName);
    expect(fieldsAsColumns(DESIGN).sort()).toEqual(columnsOf("designs").sort());
    expect([...fieldsAsColumns(ENVIRONMENT), "language"].sort()).toEqual(
      columnsOf("environments").sort(),
    );
    expect(fieldsAsColumns(EPISODE).sort()).toEqual(columnsOf("episodes").sort());
    expect(fieldsAsColumns(SAMPLE)).toEqual(columnsOf("samples"));
    db.close();
  });
});
