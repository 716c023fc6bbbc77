// Opens a trace in a running Arize Phoenix's own UI in Debian's Chromium (headless), as a
// person would after `groundcheck annotate --phoenix`: the trace, then the span that
// carries groundcheck's annotations, its Annotations panel as a table. Prints what the
// page shows as JSON ({trace_header, rows: [{name, kind, label, score, explanation}]}) and
// saves a screenshot (docs/trace-stores.md shows one).
//
//   node phoenix.mjs BASE_URL PROJECT_ID TRACE_ID OUT.png
import { chromium } from "playwright-core";

const [base, project, trace, out] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const context = await browser.newContext({ viewport: { width: 1800, height: 1000 } });
  // Phoenix's UI renders slowly beside other heavy tests on 2 cores: 30 s (playwright's
  // default) was once not enough for the Annotations panel.
  context.setDefaultTimeout(90_000);
  const tab = await context.newPage();
  await tab.goto(`${base}/projects/${project}/traces/${trace}`, { waitUntil: "networkidle" });
  // The trace opens in a drawer over the traces table, which shows the names too.
  const drawer = tab.getByTestId("application-drawer-plane");
  // The span that carries the annotations shows a chip with their names; the trace's
  // header may show the same names as summaries above it (it does once the trace falls in
  // the page's time range), so the chip is the last match, not the first.
  await drawer.getByText("groundcheck.correct", { exact: true }).last().click();
  await tab.waitForLoadState("networkidle");
  // The Annotations panel opens collapsed or not; open, it has a List/Table switch (the
  // Attributes panel's is Table/JSON): wait for it, then take its Table.
  const panel = drawer.getByRole("button", { name: /^Annotations/ }).first();
  await panel.waitFor();
  if ((await panel.getAttribute("aria-expanded")) !== "true") await panel.click();
  const list = drawer.getByText("List", { exact: true }).first();
  await list.waitFor();
  await list
    .locator("xpath=ancestor::*[.//*[normalize-space(text())='Table']][1]")
    .getByText("Table", { exact: true })
    .click();
  const table = drawer.locator("table").filter({ has: tab.locator("th", { hasText: "label" }) }).first();
  await table.waitFor();
  await tab.waitForTimeout(500);
  await tab.screenshot({ path: out });
  const heads = (await table.locator("thead th").allInnerTexts()).map((t) => t.trim());
  const rows = [];
  for (const tr of await table.locator("tbody tr").all()) {
    const cells = (await tr.locator("td").allInnerTexts()).map((t) => t.trim());
    rows.push(Object.fromEntries(heads.map((h, i) => [h, cells[i]]).filter(([h]) => h)));
  }
  const header = (await drawer.innerText()).split("\n").slice(0, 40).join("\n");
  console.log(JSON.stringify({ trace_header: header, rows }));
} finally {
  await browser.close();
}
