/**
 * The escaping templates every page is built with: interpolated values are escaped, arrays joined,
 * only `raw` passes markup, and embedded JSON cannot close its script element.
 */
import { describe, expect, it } from "vitest";
import { escapeHtml, html, jsonScript, raw } from "./html.js";

describe("html", () => {
  it("escapes the five HTML-significant characters", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
  });

  it("escapes interpolations, joins arrays, drops null/undefined/false and keeps safe markup", () => {
    const inner = html`<b>${"<i>"}</b>`;
    expect(
      html`<p>${"<script>"}${[1, "<", inner]}${null}${undefined}${false}${0}${raw("<br>")}</p>`
        .text,
    ).toBe("<p>&lt;script&gt;1&lt;<b>&lt;i&gt;</b>0<br></p>");
  });

  it("embeds JSON whose strings cannot end the script element or the line", () => {
    const script = jsonScript("d", {
      s: "</script><script>alert(1)</script>",
      t: "a\u2028b&",
    }).text;
    expect(script).toBe(
      '<script type="application/json" id="d">{"s":"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e","t":"a\\u2028b\\u0026"}</script>',
    );
    expect(JSON.parse(script.slice(script.indexOf(">") + 1, -"</script>".length))).toEqual({
      s: "</script><script>alert(1)</script>",
      t: "a\u2028b&",
    });
  });
});
