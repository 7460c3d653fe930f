/**
 * @module config/nearest
 * The name a mistyped one was meant to be, for "did you mean" in the errors of unknown flags and
 * settings.
 */

/** A name with its dashes dropped and the letter after each one upper-cased, as citty compares flags. */
export function camel(name: string): string {
  return name.replace(/-+([a-zA-Z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * Edit distance counting an insertion, a deletion, a substitution and a swap of two neighbouring
 * characters as one edit each (optimal string alignment): `--prot` is one slip from `--port`.
 */
export function editDistance(a: string, b: string): number {
  const width = b.length + 1;
  const d = new Uint16Array((a.length + 1) * width);
  const at = (i: number, j: number): number => d[i * width + j] ?? 0;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    d[i * width] = i;
    for (let j = 1; j <= b.length; j++) {
      const same = a[i - 1] === b[j - 1];
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (same ? 0 : 1));
      const swapped = i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1];
      if (swapped) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * width + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The name in `names` closest to `typed`, if one is close enough to be a slip: at most 2 edits,
 * and fewer than a third of the longer name. camelCase and kebab-case spellings of a name compare
 * equal (\`maxSesions\` is one edit from \`max-sessions\`).
 */
export function nearestName(typed: string, names: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  const key = camel(typed).toLowerCase();
  for (const name of new Set(names)) {
    const distance = editDistance(key, camel(name).toLowerCase());
    const close = distance <= 2 && distance * 3 < Math.max(key.length, name.length);
    if (close && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
