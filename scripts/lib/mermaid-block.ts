/** The Mermaid block of a Markdown report (the review's, the drift report's). */
export function mermaidOf(markdown: string): string {
  const m = /```mermaid\n([\s\S]*?)\n```/.exec(markdown);
  if (!m) throw new Error("no mermaid block");
  return m[1];
}
