/**
 * @module eval/bfcl/categories
 * What an entry id says about how upstream runs it.
 */

/** Upstream's `test_category`: the id without its trailing `_<index>`. */
export function testCategoryOf(entryId: string): string {
  const i = entryId.lastIndexOf("_");
  return i === -1 ? entryId : entryId.slice(0, i);
}

/** Whether upstream loads the long-context padding for this entry. */
export function isLongContext(entryId: string): boolean {
  const category = testCategoryOf(entryId);
  return category.includes("long_context") || category.includes("composite");
}
