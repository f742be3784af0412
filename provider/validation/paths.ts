// The property path of a check failure, as Pulumi shows it next to the resource name

export function pathOf(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const seg of path) out += typeof seg === "number" ? `[${seg}]` : out ? `.${String(seg)}` : String(seg);
  return out;
}
