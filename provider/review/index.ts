import { reviewOf } from "./changes";
import { renderMarkdown } from "./markdown";
import { readPreview } from "./preview";

// `keboola-pulumi review`: the Markdown review of a `pulumi preview --json` (see markdown.ts).

export { ReviewInputError } from "./preview";

/** The review of the text `pulumi preview --json` printed; `source` names it in errors. */
export function renderReview(text: string, source = "the preview"): string {
  return renderMarkdown(reviewOf(readPreview(text, source)));
}
