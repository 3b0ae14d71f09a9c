// Catalog texts are plain: API documents write descriptions in Markdown with HTML mixed in. The
// Markdown is rendered to HTML (marked, which passes inline HTML through) and that HTML to text
// (html-to-text: lists, tables and entities kept readable, link targets and images dropped).
import { compile, type HtmlToTextOptions } from "html-to-text";
import { marked } from "marked";

const headings = ["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: { uppercase: false } }));

const options: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    { selector: "a", options: { ignoreHref: true } },
    { selector: "img", format: "skip" },
    { selector: "table", format: "dataTable", options: { uppercaseHeaderCells: false, maxColumnWidth: 200 } },
    ...headings,
  ],
};

// Compiled once: `convert(html, options)` rebuilds its formatters on every call, which was most of
// the time an OpenAPI import spends (thousands of descriptions per document).
const htmlToText = compile(options);

/** `source` (Markdown and/or HTML) as plain text: paragraphs on their own lines, at most `max` characters (cut at a word, with "…"). */
export function plainText(source: string | undefined, max = 8000): string {
  if (!source?.trim()) return "";
  const text = htmlToText(marked.parse(source, { async: false }))
    .split("\n")
    .map((line) => line.replace(/[ \t]+/g, " ").trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}
