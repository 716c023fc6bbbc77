// Loads a groundcheck HTML page in Debian's Chromium (headless, offline: every request
// that is not the page itself is recorded and refused), and prints what the rendered DOM
// shows as JSON for tests/it/html.rs to assert on. Screenshots go to OUT_DIR.
//
//   node check.mjs PAGE.html OUT_DIR [SERVER@RUN/CASE ...]
//
// For each SERVER@RUN/CASE it opens that case's panel (#anchor, as a click on the case
// table's link does), hovers it, and reports its marked fields with their computed colours.
import { chromium } from "playwright-core";
import path from "node:path";

const [page, outDir, ...panels] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const context = await browser.newContext({ offline: true, viewport: { width: 1400, height: 900 } });
const requests = [];
const errors = [];
const url = "file://" + path.resolve(page);
await context.route("**/*", (route) => {
  const u = route.request().url();
  if (u === url || u.startsWith(url + "#")) return route.continue();
  requests.push(u);
  return route.abort();
});
const tab = await context.newPage();
tab.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
tab.on("pageerror", (e) => errors.push(String(e)));
tab.on("requestfailed", (r) => { if (!requests.includes(r.url()) && r.url() !== url) requests.push(r.url()); });
await tab.goto(url);
await tab.screenshot({ path: path.join(outDir, "first-screen.png") });
await tab.screenshot({ path: path.join(outDir, "full-page.png"), fullPage: true });

const facts = await tab.evaluate(() => {
  const text = (el) => (el ? el.textContent.trim() : null);
  const box = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, height: r.height }; };
  return {
    title: document.title,
    cells: [...document.querySelectorAll("#metrics td[data-metric]")].map((td) => ({
      metric: td.dataset.metric, side: td.dataset.side, value: td.dataset.value, text: text(td) })),
    cards: [...document.querySelectorAll(".card")].map((c) => ({
      side: c.dataset.side, box: box(c),
      metrics: Object.fromEntries([...c.querySelectorAll("dd[data-metric]")].map((d) => [d.dataset.metric, d.dataset.value])) })),
    definitions: Object.fromEntries([...document.querySelectorAll("#metrics tr[data-field]")].map((tr) => [tr.dataset.field, text(tr.querySelector(".def"))])),
    banner: [...document.querySelectorAll("[data-banner]")].map(text),
    plots: [...document.querySelectorAll("figure[data-plot]")].map((f) => {
      const svg = f.querySelector("svg");
      const r = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
      return { id: f.dataset.plot, width: r.width, height: r.height,
        rects: svg ? svg.querySelectorAll("rect").length : 0,
        circles: svg ? svg.querySelectorAll("circle").length : 0,
        lines: svg ? svg.querySelectorAll("line, polyline, path").length : 0,
        texts: svg ? [...svg.querySelectorAll("text")].map(text) : [],
        caption: text(f.querySelector("figcaption")) };
    }),
    missing: [...document.querySelectorAll(".missing")].map(text),
    tables: Object.fromEntries([...document.querySelectorAll("table[id]")].map((t) => [t.id, t.tBodies[0] ? t.tBodies[0].rows.length : 0])),
    cases: [...document.querySelectorAll("#cases tbody tr")].map((tr) => ({
      server: tr.dataset.server, case: tr.dataset.case, cls: tr.dataset.class, flags: tr.dataset.flags,
      link: tr.querySelector("a") ? tr.querySelector("a").getAttribute("href") : null })),
    cases_note: text(document.getElementById("cases-note")),
    panels_note: text(document.getElementById("panels-note")),
    deltas: [...document.querySelectorAll("#metric-deltas tbody tr")].map((tr) => ({
      metric: tr.dataset.metric, trend: tr.dataset.trend, cells: [...tr.cells].map(text) })),
    flips: [...document.querySelectorAll("#flipped tbody tr")].map((tr) => [...tr.cells].map(text)),
    changes: [...document.querySelectorAll("#change-table tbody tr")].map((tr) => ({
      rule: tr.dataset.rule, tool: tr.dataset.tool, severity: tr.dataset.severity })),
  };
});

// The table's controls: sort by concern, filter by the first server.
if (facts.cases.length) {
  await tab.click("#cases th:nth-child(10)");
  await tab.click("#cases th:nth-child(10)");
  facts.sorted_by_concern = await tab.evaluate(() =>
    [...document.querySelectorAll("#cases tbody tr")].map((tr) => Number(tr.cells[9].textContent)));
  const first = facts.cases[0].server;
  await tab.selectOption("#filter-server", first);
  facts.filtered = await tab.evaluate(() => ({
    visible: [...document.querySelectorAll("#cases tbody tr")].filter((tr) => !tr.hidden).map((tr) => tr.dataset.server),
    count: document.getElementById("filter-count").textContent }));
  await tab.selectOption("#filter-server", "");
}

facts.panels = [];
for (const want of panels) {
  const [side, kase] = want.split("/");
  const row = facts.cases.find((c) => c.server === side && c.case === kase);
  if (!row || !row.link) { facts.panels.push({ want, found: false }); continue; }
  await tab.click(`#cases a[href="${row.link}"]`);
  const id = row.link.slice(1);
  await tab.hover(`#${id} h3`);
  await tab.waitForTimeout(250);
  const panel = await tab.evaluate((id) => {
    const p = document.getElementById(id);
    const bg = (el) => getComputedStyle(el).backgroundColor;
    return {
      found: true, target: location.hash === "#" + id, visible: getComputedStyle(p).display !== "none",
      sql_marks: [...p.querySelectorAll("pre.sql mark, pre.args mark")].map((m) => ({ text: m.textContent, mark: m.className.replace("f-", ""), background: bg(m) })),
      fields: [...p.querySelectorAll(".fields mark")].map((m) => ({ field: m.dataset.field, mark: m.dataset.mark })),
      steps: [...p.querySelectorAll("ol.steps > li")].map((li) => ({ n: Number(li.dataset.step), kind: li.dataset.kind,
        guessed: li.classList.contains("guessed"), flagged: li.classList.contains("flagged"), background: bg(li),
        evidence: [...li.querySelectorAll(".evidence li")].map((e) => e.textContent) })),
      task_evidence: [...p.querySelectorAll(".task-evidence li")].map((e) => e.textContent),
      gold: p.querySelector(".gold pre").textContent,
    };
  }, id);
  await tab.locator(`#${id}`).screenshot({ path: path.join(outDir, `panel-${kase}.png`) });
  facts.panels.push({ want, ...panel });
}
facts.requests = requests;
facts.errors = errors;
await browser.close();
console.log(JSON.stringify(facts));
