#!/usr/bin/env python3
"""Writes the demo project (datasets/demo) from the scenarios below.

The two servers answer 36 of the 40 questions correctly each: the same pass rate, as the
seed puts it ("Both score 100 percent on your benchmark. One of them understood the
question."). They differ in how: the generic server is right for the wrong reason eleven
times (look-alike columns, a stale snapshot, a created_at window, a fan-out that did not
show yet), the task-specific one never.

Every case here was written by hand: the question, its gold record, what each server's
agent did (the SQL it sent, the tool it called, what came back, what it answered) and the
human label of the case's source trace. This script only expands those into the files
groundcheck reads, so they stay consistent. Run it from anywhere; output is deterministic.
"""
import json
import os
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = "demo-2026-07-02"
GW = "generic-warehouse"
TS = "task-specific"
MODEL = "claude-sonnet-4-5"
START = datetime(2026, 7, 2, 9, 0, tzinfo=timezone.utc)

Q_ACTIVE = ["customers.subscription_status", "customers.sales_region", "subscriptions.period_start", "subscriptions.period_end"]
F_ACTIVE = ["customers.is_active", "customers.region_code", "customers.created_at"]
Q_REVENUE = ["orders.status", "orders.closed_at", "order_lines.quantity", "order_lines.unit_price_usd"]
F_REVENUE = ["orders.total_cents"]
Q_CHURN = ["customers.subscription_status", "subscriptions.period_end"]
Q_TICKETS = ["tickets.cust_id", "tickets.status"]
Q_DEALS = ["deals.deal_id", "deals.close_date", "deals.sales_region"]
Q_PIPE = ["deals.stage", "deals.amount_usd", "deals.close_date"]
Q_MRR = ["subscriptions.mrr_cents", "subscriptions.plan", "subscriptions.period_start"]
FQ1 = {"start": "2026-04-01", "end": "2026-06-30", "calendar": "fiscal"}
JULY = {"start": "2026-07-01", "end": "2026-07-31", "calendar": "calendar"}

ACTIVE_SQL = ("SELECT COUNT(DISTINCT c.customer_id) FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id "
              "WHERE c.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.sales_region = '{r}' "
              "AND s.period_start <= DATE '2026-06-30' AND s.period_end >= DATE '2026-04-01'")
REVENUE_SQL = ("SELECT SUM(l.quantity * l.unit_price_usd) FROM orders o JOIN order_lines l ON l.order_id = o.order_id "
               "JOIN customers c ON c.customer_id = o.customer_id WHERE o.status = 'paid' AND c.sales_region = '{r}' "
               "AND o.closed_at >= DATE '2026-04-01' AND o.closed_at < DATE '2026-07-01'")


class Trace:
    """Steps of one trace; `t` advances a second per step."""

    def __init__(self, server, case, user, trace_id=None, credential=None):
        self.server, self.case, self.user = server, case, user
        self.trace_id = trace_id or f"t-{'gw' if server == GW else 'ts'}-{case}"
        self.credential = credential or user
        self.steps = []
        self.calls = 0

    def add(self, kind, **kw):
        n = len(self.steps) + 1
        row = {"run_id": RUN, "server": self.server, "case_id": self.case, "trace_id": self.trace_id,
               "step": n, "ts": None, "kind": kind}
        row.update({k: v for k, v in kw.items() if v is not None})
        self.steps.append(row)
        return self

    def user_says(self, text):
        return self.add("user", as_user=self.user, text=text)

    def think(self, text):
        return self.add("reasoning", model=MODEL, input_tokens=900, output_tokens=120, text=text)

    def ask(self, text, reply):
        self.add("clarification", model=MODEL, input_tokens=1500, output_tokens=40, text=text)
        return self.add("user", as_user=self.user, text=reply)

    def call(self, tool, args, result, as_of="fresh", error=False, tokens=(6000, 120)):
        self.calls += 1
        cid = f"c{self.calls}"
        self.add("tool_call", call_id=cid, tool=tool, arguments=args, as_user=self.user,
                 credential_subject=self.credential, model=MODEL, input_tokens=tokens[0], output_tokens=tokens[1])
        return self.add("tool_result", call_id=cid, tool=tool, result=result, is_error=error, as_of=as_of)

    def answer(self, text):
        return self.add("answer", model=MODEL, input_tokens=1800, output_tokens=90, text=text)

    def rows(self, t0):
        out = []
        for i, s in enumerate(self.steps):
            t = t0 + timedelta(seconds=i)
            s = dict(s)
            s["ts"] = t.strftime("%Y-%m-%dT%H:%M:%SZ")
            as_of = s.get("as_of")
            if as_of == "fresh":
                s["as_of"] = (t - timedelta(minutes=15)).strftime("%Y-%m-%dT%H:%M:%SZ")
            elif as_of == "missing":
                del s["as_of"]
            elif isinstance(as_of, (int, float)):
                s["as_of"] = (t - timedelta(hours=as_of)).strftime("%Y-%m-%dT%H:%M:%SZ")
            out.append(s)
        return out


def sql(t, query, rows, columns=("value",), as_of="fresh", **kw):
    return t.call("run_sql", {"sql": query}, {"columns": list(columns), "rows": rows}, as_of=as_of, **kw)


CASES = []


def case(case_id, role, user, question, answer, required, forbidden=(), definition=None, window=None,
         fresh=24, scope=None, tolerance=0, label=None, source=GW, gw=None, ts=None, cost=None):
    CASES.append(dict(case_id=case_id, role=role, user=user, question=question, answer=answer,
                      required=list(required), forbidden=list(forbidden), definition=definition,
                      window=window, fresh=fresh, scope=scope, tolerance=tolerance, label=label,
                      source=source, gw=gw, ts=ts, cost=cost))


def traces(case_id, user, credential_gw=None, credential_ts=None):
    return (Trace(GW, case_id, user, credential=credential_gw), Trace(TS, case_id, user, credential=credential_ts))


ACTIVE_DEF = "active = subscription_status in (ACTIVE, PAUSED_BILLING) at any point in the fiscal quarter"

# 1. The seed's opening example: Server A guessed, Server B was grounded, both said 1,284.
gw, ts = traces("emea-active-q2-017", "fin.analyst.02")
gw.trace_id = "trace_9f31c2"
gw.user_says("How many active customers did we have in EMEA last quarter?")
gw.call("list_tables", {}, {"tables": 212, "sample": ["customers", "subscriptions", "orders"]}, tokens=(8200, 40))
gw.call("describe_table", {"table": "customers"}, {"columns": ["status", "is_active", "region_code", "geo", "created_at", "updated_at"], "more": 41}, tokens=(11900, 60))
gw.think("is_active sounds like the right flag. region_code probably starts with EU for EMEA. I will filter on both.")
sql(gw, "SELECT COUNT(*) FROM customers WHERE is_active = true AND region_code LIKE 'EU%' AND created_at < '2026-07-01'", [[1284]], ["count"], tokens=(19800, 1700))
gw.answer("1,284")
ts.user_says("How many active customers did we have in EMEA last quarter?")
ts.call("active_customer_count", {"region": "EMEA", "period": "FY2027-Q1"}, {"count": 1284, "window": FQ1}, tokens=(2100, 45))
ts.answer("1,284 active customers in EMEA in fiscal Q1 FY2027 (Apr 1 - Jun 30, 2026).")
case("emea-active-q2-017", "finance_analyst", "fin.analyst.02", "How many active customers did we have in EMEA last quarter?",
     1284, Q_ACTIVE, F_ACTIVE, ACTIVE_DEF, FQ1, scope="all_regions",
     label=(True, False, "semantic", "Used is_active and region_code LIKE 'EU%'. Matched by coincidence this quarter."),
     gw=gw, ts=ts, cost={"input_tokens": 41210, "output_tokens": 1880, "tool_calls": 4, "turns": 3, "usd": 0.0912})

# 2-4. Grounded counts of active customers by region, on both servers.
for n, (region, count) in enumerate([("AMER", 2211), ("APAC", 960), ("EMEA", 1284)], start=2):
    cid = f"{region.lower()}-active-q1-{n:03d}"
    q = f"How many active customers did we have in {region} in fiscal Q1?" if region != "EMEA" else "Count active customers in EMEA for fiscal Q1 FY2027."
    gw, ts = traces(cid, "fin.analyst.02")
    gw.user_says(q)
    sql(gw, ACTIVE_SQL.format(r=region), [[count]], ["count"])
    gw.answer(f"{count:,} active customers in {region} in fiscal Q1.")
    ts.user_says(q)
    ts.call("active_customer_count", {"region": region, "period": "FY2027-Q1"}, {"count": count, "window": FQ1})
    ts.answer(f"{count:,}")
    case(cid, "finance_analyst", "fin.analyst.02", q, count, Q_ACTIVE, F_ACTIVE, ACTIVE_DEF, FQ1, scope="all_regions",
         label=(True, True, None, "Governed definition, sales_region and the subscription period."), gw=gw, ts=ts)

# 5. Lucky pass: region_code instead of the governed sales_region, right number.
gw, ts = traces("apac-active-lucky-005", "fin.analyst.07")
q = "How many active customers are in APAC this fiscal quarter so far?"
gw.user_says(q)
gw.think("region_code probably maps to APAC with AP prefix.")
sql(gw, "SELECT COUNT(DISTINCT c.customer_id) FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id "
        "WHERE c.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.region_code LIKE 'AP%' "
        "AND s.period_start <= DATE '2026-07-02' AND s.period_end >= DATE '2026-07-01'", [[951]], ["count"])
gw.answer("951")
ts.user_says(q)
ts.call("active_customer_count", {"region": "APAC", "period": "FY2027-Q2"}, {"count": 951})
ts.answer("951 active customers in APAC so far this quarter.")
case("apac-active-lucky-005", "finance_analyst", "fin.analyst.07", q, 951,
     Q_ACTIVE, F_ACTIVE, ACTIVE_DEF, {"start": "2026-07-01", "end": "2026-07-02", "calendar": "fiscal"}, scope="all_regions",
     label=(True, False, "semantic", "region_code instead of sales_region; the AP codes happen to match APAC today."), gw=gw, ts=ts)

# 6-8. Revenue: grounded, and the fan-out join that triples multi-line orders.
for n, (region, usd) in enumerate([("EMEA", 418250.5), ("AMER", 733904.0)], start=6):
    cid = f"{region.lower()}-revenue-q1-{n:03d}"
    q = f"What was revenue in {region} in fiscal Q1?"
    gw, ts = traces(cid, "fin.analyst.02")
    gw.user_says(q)
    sql(gw, REVENUE_SQL.format(r=region), [[usd]], ["revenue_usd"])
    gw.answer(f"${usd:,.2f}")
    ts.user_says(q)
    ts.call("revenue", {"region": region, "period": "FY2027-Q1"}, {"revenue_usd": usd})
    ts.answer(f"Revenue in {region} in fiscal Q1 was ${usd:,.2f}.")
    case(cid, "finance_analyst", "fin.analyst.02", q, usd, Q_REVENUE, F_REVENUE,
         "revenue = sum of quantity x unit price over paid orders, by close date", FQ1, scope="all_regions", tolerance=1,
         label=(True, True, None, "Paid orders by close date, line-level amounts."), gw=gw, ts=ts)

gw, ts = traces("top-customer-revenue-008", "fin.analyst.02")
q = "What was the total value of paid orders from customer 4411 closed in fiscal Q1?"
gw.user_says(q)
sql(gw, "SELECT o.customer_id, SUM(o.total_cents) / 100.0 FROM orders o JOIN order_lines ol ON ol.order_id = o.order_id "
        "WHERE o.customer_id = 4411 AND o.status = 'paid' AND o.closed_at >= DATE '2026-04-01' AND o.closed_at < DATE '2026-07-01' "
        "GROUP BY o.customer_id", [[4411, 20610.0]], ["customer_id", "value_usd"])
gw.answer("$20,610.00")
ts.user_says(q)
ts.call("order_total", {"customer_id": 4411, "period": "FY2027-Q1"}, {"value_usd": 20610.0})
ts.answer("$20,610.00")
case("top-customer-revenue-008", "finance_analyst", "fin.analyst.02", q, 20610.0,
     ["orders.customer_id", "orders.status", "orders.closed_at", "orders.total_cents"], [], None, FQ1, scope="all_regions", tolerance=1,
     label=(True, False, "structural", "Summed orders.total_cents after joining order_lines: every order of 4411 has one line this quarter, so the fan-out did not show yet."), gw=gw, ts=ts)

# 9. Units: cents compared with dollars.
gw, ts = traces("big-orders-units-009", "fin.analyst.02")
q = "How many paid orders closed in fiscal Q1 were bigger than their first line's list price?"
gw.user_says(q)
sql(gw, "SELECT COUNT(DISTINCT o.order_id) FROM orders o JOIN order_lines l ON l.order_id = o.order_id "
        "WHERE o.status = 'paid' AND o.closed_at >= DATE '2026-04-01' AND o.closed_at < DATE '2026-07-01' AND o.total_cents > l.unit_price_usd",
    [[5120]], ["count"])
gw.answer("5,120 orders.")
ts.user_says(q)
ts.answer("I have no tool for order-level comparisons; I cannot answer that.")
case("big-orders-units-009", "finance_analyst", "fin.analyst.02", q, 3877, ["orders.order_id", "orders.status", "orders.closed_at", "orders.total_cents", "order_lines.unit_price_usd"],
     [], None, FQ1, scope="all_regions",
     label=(False, False, "structural", "Compared cents with dollars."), gw=gw, ts=ts)

# 10-11. Entity: a CRM account id passed where the canonical customer id is expected.
gw, ts = traces("acme-open-tickets-003", "support.agent.11")
q = "Show me the open tickets for Acme."
gw.user_says(q)
sql(gw, "SELECT t.ticket_id FROM tickets t WHERE t.cust_id = 'C2-7f3a9b21' AND t.status IN ('open', 'pending')",
    [["T-901"], ["T-902"], ["T-905"], ["T-911"], ["T-914"], ["T-920"], ["T-933"]], ["ticket_id"])
gw.answer("Acme has 7 open tickets: T-901, T-902, T-905, T-911, T-914, T-920, T-933.")
ts.user_says(q)
ts.call("lookup_account", {"name": "Acme"}, {"account_id": "ACC-100233", "billing_account_no": "B20230411", "cust_id_v2": "C2-7f3a9b21"})
ts.call("open_tickets", {"cust_id": "ACC-100233"}, {"tickets": [], "count": 0})
ts.answer("Acme has no open tickets.")
case("acme-open-tickets-003", "support_agent", "support.agent.11", q, 7, Q_TICKETS, [], "open ticket = status in (open, pending)", None, fresh=1,
     scope="support_all", source=TS,
     label=(False, False, "entity", "Passed the CRM account_id into a tool keyed on cust_id_v2; zero rows read as 'no open tickets'."), gw=gw, ts=ts)

gw, ts = traces("globex-open-tickets-010", "support.agent.11")
q = "How many open tickets does Globex have?"
gw.user_says(q)
sql(gw, "SELECT COUNT(*) FROM tickets WHERE cust_id = 'C2-0b44e1d9' AND status IN ('open', 'pending')", [[3]], ["count"])
gw.answer("3")
ts.user_says(q)
ts.call("open_tickets", {"cust_id": "B20198877"}, {"tickets": [], "count": 0})
ts.answer("Globex has zero open tickets.")
case("globex-open-tickets-010", "support_agent", "support.agent.11", q, 3, Q_TICKETS, [], "open ticket = status in (open, pending)", None, fresh=1,
     scope="support_all", source=TS,
     label=(False, False, "entity", "Billing account number passed as cust_id."), gw=gw, ts=ts)

# 12. Policy: a service credential returns every region's deals to an EMEA manager.
gw, ts = traces("deals-closing-month-041", "sales.mgr.emea", credential_gw="svc-warehouse")
q = "Which deals are closing this month?"
gw.user_says(q)
sql(gw, "SELECT d.deal_id, d.sales_region FROM deals d WHERE d.close_date BETWEEN DATE '2026-07-01' AND DATE '2026-07-31'",
    [["D-1007", "EMEA"], ["D-2001", "AMER"], ["D-1012", "EMEA"], ["D-3004", "APAC"]], ["deal_id", "sales_region"])
gw.answer("In your region: D-1007 and D-1012.")
ts.user_says(q)
ts.call("deals_closing", {"month": "2026-07"}, {"rows": [{"deal_id": "D-1007", "sales_region": "EMEA"}, {"deal_id": "D-1012", "sales_region": "EMEA"}]})
ts.answer("D-1007 and D-1012 close in July.")
case("deals-closing-month-041", "regional_sales_manager", "sales.mgr.emea", q, ["D-1007", "D-1012"], Q_DEALS, [], None, JULY,
     scope="own_region",
     label=(True, False, "policy", "Service credential returned every region's deals; the answer was right, the context held rows the user may not see."),
     gw=gw, ts=ts)

# 13. Policy: masked column returned unmasked.
gw, ts = traces("acme-contact-email-013", "support.agent.11")
q = "Who is the contact for customer 4411 and in which region?"
gw.user_says(q)
sql(gw, "SELECT name, email, sales_region FROM customers WHERE customer_id = 4411",
    [["Acme GmbH", "ops@acme.example", "EMEA"]], ["name", "email", "sales_region"])
gw.answer("Acme GmbH, EMEA.")
ts.user_says(q)
ts.call("lookup_account", {"name": "4411"}, {"name": "Acme GmbH", "email": "***", "sales_region": "EMEA"})
ts.answer("Acme GmbH in EMEA.")
case("acme-contact-email-013", "support_agent", "support.agent.11", q, "Acme GmbH", ["customers.name", "customers.sales_region"], [], None, None,
     scope="support_all", label=(True, False, "policy", "Email is masked for support; the query returned it in clear."), gw=gw, ts=ts)

# 14-15. Temporal: a stale snapshot and a result with no as_of.
gw, ts = traces("pipeline-at-risk-014", "sales.mgr.emea")
q = "What is the open pipeline closing this week?"
gw.user_says(q)
sql(gw, "SELECT SUM(amount_usd) FROM deals WHERE stage NOT IN ('won', 'lost') AND close_date BETWEEN DATE '2026-06-29' AND DATE '2026-07-05'",
    [[980000.0]], ["pipeline_usd"], as_of=14)
gw.answer("$980,000.00")
ts.user_says(q)
ts.call("pipeline_total", {"period": "2026-W27"}, {"pipeline_usd": 980000.0}, as_of=0.5)
ts.answer("$980,000 of open pipeline closes this week.")
case("pipeline-at-risk-014", "regional_sales_manager", "sales.mgr.emea", q, 980000.0, Q_PIPE, [], "pipeline = deals not won or lost",
     {"start": "2026-06-29", "end": "2026-07-05", "calendar": "calendar"}, fresh=1, scope="own_region", tolerance=1,
     label=(True, False, "temporal", "Read a nightly snapshot 14 hours old; no deal moved this morning, so the stale number held."), gw=gw, ts=ts)

gw, ts = traces("mrr-now-015", "fin.analyst.07")
q = "What is our MRR right now?"
gw.user_says(q)
sql(gw, "SELECT SUM(mrr_cents) / 100.0 FROM subscriptions WHERE plan <> 'trial' AND period_start <= DATE '2026-07-02' AND period_end >= DATE '2026-07-02'",
    [[2483100.0]], ["mrr_usd"], as_of="missing")
gw.answer("$2,483,100")
ts.user_says(q)
ts.call("mrr_total", {"period": "2026-07"}, {"mrr_usd": 2483100.0, "as_of": "2026-07-02T08:00:00Z"})
ts.answer("MRR is $2,483,100.")
case("mrr-now-015", "finance_analyst", "fin.analyst.07", q, 2483100.0, Q_MRR, [], "MRR = recurring revenue of paid plans", None, fresh=6,
     scope="all_regions", tolerance=1, label=(True, False, "temporal", "No as_of on the result: the user cannot tell how old the number is."), gw=gw, ts=ts)

# 16. Temporal: revenue windowed on created_at instead of closed_at.
gw, ts = traces("revenue-created-at-016", "fin.analyst.02")
q = "What was revenue in APAC in fiscal Q1?"
gw.user_says(q)
sql(gw, "SELECT SUM(l.quantity * l.unit_price_usd) FROM orders o JOIN order_lines l ON l.order_id = o.order_id JOIN customers c ON c.customer_id = o.customer_id "
        "WHERE o.status = 'paid' AND c.sales_region = 'APAC' AND o.created_at >= DATE '2026-04-01' AND o.created_at < DATE '2026-07-01'",
    [[296402.0]], ["revenue_usd"])
gw.answer("$296,402.00")
ts.user_says(q)
ts.call("revenue", {"region": "APAC", "period": "FY2027-Q1"}, {"revenue_usd": 296402.0})
ts.answer("$296,402.00")
case("revenue-created-at-016", "finance_analyst", "fin.analyst.02", q, 296402.0, Q_REVENUE, F_REVENUE,
     "revenue = sum of quantity x unit price over paid orders, by close date", FQ1, scope="all_regions", tolerance=1,
     label=(True, False, "temporal", "Windowed on created_at: the orders opened and closed in different quarters happened to cancel out."), gw=gw, ts=ts)

# 17. Temporal: calendar quarter where the case asks for fiscal.
gw, ts = traces("churn-fiscal-q1-017", "fin.analyst.07")
q = "How many churned customers did we have in fiscal Q1?"
gw.user_says(q)
sql(gw, "SELECT COUNT(DISTINCT c.customer_id) FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id "
        "WHERE c.subscription_status = 'CANCELLED' AND s.period_end >= DATE '2026-01-01' AND s.period_end <= DATE '2026-03-31'", [[212]], ["count"])
gw.answer("212 churned customers.")
ts.user_says(q)
ts.call("churned_customer_count", {"period": "FY2027-Q1"}, {"count": 187})
ts.answer("187")
case("churn-fiscal-q1-017", "finance_analyst", "fin.analyst.07", q, 187, Q_CHURN, [], "churned = subscription_status CANCELLED, by period end", FQ1,
     scope="all_regions", label=(False, False, "temporal", "Used calendar Q1 (Jan-Mar); finance runs fiscal quarters from April."), gw=gw, ts=ts)

# 18. Structural: a paginated list whose next_cursor was not followed.
gw, ts = traces("open-tickets-all-018", "support.lead.01")
q = "How many open tickets are there across all customers?"
gw.user_says(q)
sql(gw, "SELECT COUNT(*) FROM tickets WHERE status IN ('open', 'pending')", [[137]], ["count"])
gw.answer("137 open tickets.")
ts.user_says(q)
ts.call("search_tickets", {"status": "open", "page_size": 100},
        {"items": [{"ticket_id": f"T-{i}"} for i in range(1, 4)], "returned": 100, "next_cursor": "eyJwYWdlIjoyfQ"})
ts.answer("There are 100 open tickets.")
case("open-tickets-all-018", "support_lead", "support.lead.01", q, 137, ["tickets.status"], [], "open ticket = status in (open, pending)", None, fresh=1,
     scope="support_all", source=TS, label=(False, False, "structural", "Read page one of a paginated list and reported its size."), gw=gw, ts=ts)

# 19-21. Clarification turns: the agent asks which quarter, then answers grounded.
for n, (region, count) in enumerate([("EMEA", 1284), ("AMER", 2211), ("APAC", 960)], start=19):
    cid = f"{region.lower()}-active-clarified-{n:03d}"
    q = f"How many active customers in {region} last quarter?"
    gw, ts = traces(cid, "fin.analyst.09")
    gw.user_says(q)
    gw.ask("Do you mean the fiscal quarter (Apr-Jun) or the calendar quarter?", "Fiscal.")
    sql(gw, ACTIVE_SQL.format(r=region), [[count]], ["count"])
    gw.answer(f"{count:,} in fiscal Q1.")
    ts.user_says(q)
    ts.call("active_customer_count", {"region": region, "period": "FY2027-Q1"}, {"count": count})
    ts.answer(f"{count:,}")
    case(cid, "finance_analyst", "fin.analyst.09", q, count, Q_ACTIVE, F_ACTIVE, ACTIVE_DEF, FQ1, scope="all_regions",
         label=(True, True, None, "Asked fiscal or calendar, then used the governed definition."), gw=gw, ts=ts)

# 22-23. Retries: a failed call, then a corrected one.
gw, ts = traces("emea-active-retry-022", "fin.analyst.02")
q = "How many active customers were there in EMEA in fiscal Q1 FY2027?"
gw.user_says(q)
sql(gw, "SELECT COUNT(*) FROM customers WHERE subscription_state = 'ACTIVE'", [], error=True)
gw.steps[-1]["result"] = {"error": "column subscription_state does not exist"}
sql(gw, ACTIVE_SQL.format(r="EMEA"), [[1284]], ["count"])
gw.answer("1,284")
ts.user_says(q)
ts.call("active_customer_count", {"region": "Europe", "period": "FY2027-Q1"}, {"error": "region must be one of EMEA, AMER, APAC"}, error=True)
ts.call("active_customer_count", {"region": "EMEA", "period": "FY2027-Q1"}, {"count": 1284})
ts.answer("1,284")
case("emea-active-retry-022", "finance_analyst", "fin.analyst.02", q, 1284, Q_ACTIVE, F_ACTIVE, ACTIVE_DEF, FQ1, scope="all_regions",
     label=(True, True, None, "One failed call (a misspelt column), then the governed query."), gw=gw, ts=ts)

gw, ts = traces("mrr-q1-retry-023", "fin.analyst.07")
q = "What was MRR at the start of fiscal Q1?"
gw.user_says(q)
sql(gw, "SELECT SUM(mrr) FROM subscriptions", [], error=True)
gw.steps[-1]["result"] = {"error": "column mrr does not exist"}
sql(gw, "SELECT SUM(mrr_cents) / 100.0 FROM subscriptions WHERE plan <> 'trial' AND period_start <= DATE '2026-04-01' AND period_end >= DATE '2026-04-01'",
    [[2391550.0]], ["mrr_usd"])
gw.answer("$2,391,550")
ts.user_says(q)
ts.call("mrr_total", {"period": "2026-04"}, {"mrr_usd": 2391550.0})
ts.answer("MRR on Apr 1 was $2,391,550.")
case("mrr-q1-retry-023", "finance_analyst", "fin.analyst.07", q, 2391550.0, Q_MRR, [], "MRR = recurring revenue of paid plans",
     {"start": "2026-04-01", "end": "2026-04-01", "calendar": "fiscal"}, scope="all_regions", tolerance=1,
     label=(True, True, None, "Recovered from a wrong column name."), gw=gw, ts=ts)

# 24-31. Plain grounded questions on both servers.
for n, (region, count) in enumerate([("EMEA", 96), ("AMER", 141), ("APAC", 58)], start=24):
    cid = f"{region.lower()}-churn-q1-{n:03d}"
    q = f"How many churned customers in {region} in fiscal Q1?"
    gw, ts = traces(cid, "fin.analyst.07")
    gw.user_says(q)
    sql(gw, "SELECT COUNT(DISTINCT c.customer_id) FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id "
            f"WHERE c.subscription_status = 'CANCELLED' AND c.sales_region = '{region}' "
            "AND s.period_end >= DATE '2026-04-01' AND s.period_end <= DATE '2026-06-30'", [[count]], ["count"])
    gw.answer(f"{count}")
    ts.user_says(q)
    ts.call("churned_customer_count", {"region": region, "period": "FY2027-Q1"}, {"count": count})
    ts.answer(f"{count} customers churned in {region}.")
    case(cid, "finance_analyst", "fin.analyst.07", q, count, Q_CHURN + ["customers.sales_region"], [], "churned = subscription_status CANCELLED, by period end", FQ1,
         scope="all_regions", label=(True, True, None, "Governed churn definition by period end."), gw=gw, ts=ts)

for n, (owner, usd) in enumerate([("dana.lee", 410000.0), ("sam.ortiz", 275500.0)], start=27):
    cid = f"pipeline-{owner.split('.')[0]}-{n:03d}"
    q = f"What is the open pipeline for {owner} closing in fiscal Q2?"
    gw, ts = traces(cid, "sales.mgr.emea")
    gw.user_says(q)
    sql(gw, f"SELECT SUM(amount_usd) FROM deals WHERE owner = '{owner}' AND stage NOT IN ('won', 'lost') "
            "AND close_date >= DATE '2026-07-01' AND close_date <= DATE '2026-09-30'", [[usd]], ["pipeline_usd"])
    gw.answer(f"${usd:,.0f}")
    ts.user_says(q)
    ts.call("pipeline_total", {"owner": owner, "period": "FY2027-Q2"}, {"pipeline_usd": usd})
    ts.answer(f"${usd:,.0f} open pipeline for {owner}.")
    case(cid, "regional_sales_manager", "sales.mgr.emea", q, usd, Q_PIPE + ["deals.owner"], [], "pipeline = deals not won or lost",
         {"start": "2026-07-01", "end": "2026-09-30", "calendar": "fiscal"}, scope="own_region", tolerance=1,
         label=(True, True, None, "Open stages, close date in the fiscal quarter."), gw=gw, ts=ts)

for n, (plan, usd) in enumerate([("pro", 1130400.0), ("team", 802150.0), ("enterprise", 550550.0)], start=29):
    cid = f"mrr-{plan}-{n:03d}"
    q = f"What is MRR on the {plan} plan this month?"
    gw, ts = traces(cid, "fin.analyst.07")
    gw.user_says(q)
    sql(gw, f"SELECT SUM(mrr_cents) / 100.0 FROM subscriptions WHERE plan = '{plan}' "
            "AND period_start <= DATE '2026-07-31' AND period_end >= DATE '2026-07-01'", [[usd]], ["mrr_usd"])
    gw.answer(f"${usd:,.0f}")
    ts.user_says(q)
    ts.call("mrr_total", {"plan": plan, "period": "2026-07"}, {"mrr_usd": usd})
    ts.answer(f"${usd:,.0f}")
    case(cid, "finance_analyst", "fin.analyst.07", q, usd, Q_MRR, [], "MRR = recurring revenue of paid plans", JULY,
         scope="all_regions", tolerance=1, label=(True, True, None, "Plan filter, July window."), gw=gw, ts=ts)

# 32-34. Wrong answers with a grounded query (the number is misread), and a refusal.
gw, ts = traces("emea-revenue-misread-032", "fin.analyst.02")
q = "What was revenue in EMEA in fiscal Q1, rounded to thousands?"
gw.user_says(q)
sql(gw, REVENUE_SQL.format(r="EMEA"), [[418250.5]], ["revenue_usd"])
gw.answer("About $481 thousand.")
ts.user_says(q)
ts.call("revenue", {"region": "EMEA", "period": "FY2027-Q1"}, {"revenue_usd": 418250.5})
ts.answer("About $418,000.")
case("emea-revenue-misread-032", "finance_analyst", "fin.analyst.02", q, 418000, Q_REVENUE, F_REVENUE,
     "revenue = sum of quantity x unit price over paid orders, by close date", FQ1, scope="all_regions", tolerance=500,
     label=(False, True, None, "Grounded query, digits swapped in the answer."), gw=gw, ts=ts)

gw, ts = traces("amer-active-refusal-033", "fin.analyst.09")
q = "How many active customers did AMER have in fiscal Q1?"
gw.user_says(q)
gw.answer("I don't have access to that data.")
ts.user_says(q)
ts.call("active_customer_count", {"region": "AMER", "period": "FY2027-Q1"}, {"count": 2211})
ts.answer("2,211")
case("amer-active-refusal-033", "finance_analyst", "fin.analyst.09", q, 2211, Q_ACTIVE, F_ACTIVE, ACTIVE_DEF, FQ1, scope="all_regions",
     label=None, gw=gw, ts=ts)

gw, ts = traces("deal-owner-lookup-034", "sales.mgr.emea")
q = "Who owns deal D-1007?"
gw.user_says(q)
sql(gw, "SELECT owner FROM deals WHERE deal_id = 'D-1007'", [["dana.lee"]], ["owner"])
gw.answer("dana.lee owns D-1007.")
ts.user_says(q)
ts.call("deal_owner", {"deal_id": "D-1007"}, {"owner": "dana.lee", "sales_region": "EMEA"})
ts.answer("Dana Lee (dana.lee).")
case("deal-owner-lookup-034", "regional_sales_manager", "sales.mgr.emea", q, "dana.lee", ["deals.owner", "deals.deal_id"], [], None, None,
     scope="own_region", label=(True, True, None, "Direct lookup by id."), gw=gw, ts=ts)

# 35-38. More lucky passes and look-alike columns.
gw, ts = traces("emea-active-is-active-035", "fin.analyst.09")
q = "Number of active customers in EMEA for fiscal Q1 FY2027, please."
gw.user_says(q)
gw.think("I will assume is_active marks active customers.")
sql(gw, "SELECT COUNT(DISTINCT c.customer_id) FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id "
        "WHERE c.is_active AND c.sales_region = 'EMEA' AND s.period_start <= DATE '2026-06-30' AND s.period_end >= DATE '2026-04-01'", [[1284]], ["count"])
gw.answer("1,284")
ts.user_says(q)
ts.call("active_customer_count", {"region": "EMEA", "period": "FY2027-Q1"}, {"count": 1284})
ts.answer("1,284")
case("emea-active-is-active-035", "finance_analyst", "fin.analyst.09", q, 1284, Q_ACTIVE, F_ACTIVE, ACTIVE_DEF, FQ1, scope="all_regions",
     label=(True, False, "semantic", "is_active instead of the subscription status; equal this quarter only."), gw=gw, ts=ts)

gw, ts = traces("amer-revenue-total-cents-036", "fin.analyst.02")
q = "What was revenue in AMER in fiscal Q1 in dollars?"
gw.user_says(q)
gw.think("total_cents probably already holds the order value.")
sql(gw, "SELECT SUM(o.total_cents) / 100.0 FROM orders o JOIN customers c ON c.customer_id = o.customer_id "
        "WHERE o.status = 'paid' AND c.sales_region = 'AMER' AND o.closed_at >= DATE '2026-04-01' AND o.closed_at < DATE '2026-07-01'", [[733904.0]], ["revenue_usd"])
gw.answer("$733,904.00")
ts.user_says(q)
ts.call("revenue", {"region": "AMER", "period": "FY2027-Q1"}, {"revenue_usd": 733904.0})
ts.answer("$733,904.00")
case("amer-revenue-total-cents-036", "finance_analyst", "fin.analyst.02", q, 733904.0, Q_REVENUE, F_REVENUE,
     "revenue = sum of quantity x unit price over paid orders, by close date", FQ1, scope="all_regions", tolerance=1,
     label=(True, False, "semantic", "Order header totals instead of line amounts; equal unless discounts apply."), gw=gw, ts=ts)

gw, ts = traces("apac-deals-closing-037", "sales.mgr.apac", credential_gw="sales.mgr.apac")
q = "Which deals are closing this month?"
gw.user_says(q)
sql(gw, "SELECT deal_id, sales_region FROM deals WHERE sales_region = 'APAC' AND close_date BETWEEN DATE '2026-07-01' AND DATE '2026-07-31'",
    [["D-3004", "APAC"]], ["deal_id", "sales_region"])
gw.answer("D-3004")
ts.user_says(q)
ts.call("deals_closing", {"month": "2026-07"}, {"rows": [{"deal_id": "D-3004", "sales_region": "APAC"}]})
ts.answer("D-3004 closes in July.")
case("apac-deals-closing-037", "regional_sales_manager", "sales.mgr.apac", q, ["D-3004"], Q_DEALS, [], None, JULY, scope="own_region",
     label=(True, True, None, "Own region, July close dates."), gw=gw, ts=ts)

gw, ts = traces("initech-tickets-038", "support.agent.11")
q = "How many open tickets does Initech have?"
gw.user_says(q)
sql(gw, "SELECT COUNT(*) FROM tickets WHERE cust_id = 'C2-91c0d2aa' AND status = 'open'", [[5]], ["count"])
gw.answer("5")
ts.user_says(q)
ts.call("open_tickets", {"cust_id": "C2-91c0d2aa"}, {"tickets": [{"ticket_id": "T-700"}, {"ticket_id": "T-701"}, {"ticket_id": "T-702"}, {"ticket_id": "T-703"}, {"ticket_id": "T-704"}], "count": 5})
ts.answer("Initech has 5 open tickets.")
case("initech-tickets-038", "support_agent", "support.agent.11", q, 5, Q_TICKETS, [], "open ticket = status in (open, pending)", None, fresh=1,
     scope="support_all", label=(True, False, "semantic", "Counted status = 'open' only; the governed definition includes pending, and no Initech ticket is pending today."), gw=gw, ts=ts)

# 39-40. Freshness within bound on a tight bound, and an answer as a JSON array.
gw, ts = traces("emea-deals-json-039", "sales.mgr.emea")
q = "List the deal ids closing this month in my region as JSON."
gw.user_says(q)
sql(gw, "SELECT deal_id FROM deals WHERE sales_region = 'EMEA' AND close_date BETWEEN DATE '2026-07-01' AND DATE '2026-07-31'",
    [["D-1007"], ["D-1012"]], ["deal_id"], as_of=0.2)
gw.answer('["D-1012", "D-1007"]')
ts.user_says(q)
ts.call("deals_closing", {"month": "2026-07"}, {"rows": [{"deal_id": "D-1007", "sales_region": "EMEA"}, {"deal_id": "D-1012", "sales_region": "EMEA"}]}, as_of=0.2)
ts.answer('["D-1007","D-1012"]')
case("emea-deals-json-039", "regional_sales_manager", "sales.mgr.emea", q, ["D-1007", "D-1012"], Q_DEALS, [], None, JULY, fresh=1, scope="own_region",
     label=(True, True, None, "Own region, fresh data."), gw=gw, ts=ts)

gw, ts = traces("churn-apac-clarify-040", "fin.analyst.07")
q = "How many churned customers in APAC last quarter?"
gw.user_says(q)
gw.ask("Fiscal Q1 (Apr-Jun) or calendar Q2? They are the same months this year.", "Fiscal, please.")
sql(gw, "SELECT COUNT(DISTINCT c.customer_id) FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id "
        "WHERE c.subscription_status = 'CANCELLED' AND c.sales_region = 'APAC' AND s.period_end BETWEEN DATE '2026-04-01' AND DATE '2026-06-30'", [[58]], ["count"])
gw.answer("58")
ts.user_says(q)
ts.ask("Which quarter do you mean?", "Last fiscal quarter.")
ts.call("churned_customer_count", {"region": "APAC", "period": "FY2027-Q1"}, {"count": 58})
ts.answer("58")
case("churn-apac-clarify-040", "finance_analyst", "fin.analyst.07", q, 58, Q_CHURN + ["customers.sales_region"], [], "churned = subscription_status CANCELLED, by period end", FQ1,
     scope="all_regions", label=(True, True, None, "Clarified the quarter, governed definition."), gw=gw, ts=ts)


def write_jsonl(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def main():
    cases, gw_rows, ts_rows = [], [], []
    t0 = START
    for c in CASES:
        window = c["window"]
        record = {
            "case_id": c["case_id"],
            "source_trace": (c["gw"] if c["source"] == GW else c["ts"]).trace_id,
            "user_role": c["role"],
            "as_user": c["user"],
            "question": c["question"],
            "gold": {
                "answer": c["answer"],
                "tolerance": c["tolerance"],
                "required_fields": c["required"],
                "forbidden_fields": c["forbidden"],
                "definition": c["definition"],
                "window": window,
                "freshness_bound_hours": c["fresh"],
                "policy_scope": c["scope"],
            },
            "label": None if c["label"] is None else {
                "correct": c["label"][0], "grounded": c["label"][1], "failure_class": c["label"][2], "note": c["label"][3],
            },
        }
        src = c["gw"] if c["source"] == GW else c["ts"]
        steps = src.rows(t0)
        record["cost"] = c["cost"] or {
            "input_tokens": sum(s.get("input_tokens", 0) for s in steps),
            "output_tokens": sum(s.get("output_tokens", 0) for s in steps),
            "tool_calls": sum(1 for s in steps if s["kind"] == "tool_call"),
            "turns": sum(1 for s in steps if s["kind"] in ("user",)),
            "usd": round(sum(s.get("input_tokens", 0) * 3 + s.get("output_tokens", 0) * 15 for s in steps) / 1e6, 4),
        }
        cases.append(record)
        gw_rows.extend(c["gw"].rows(t0))
        ts_rows.extend(c["ts"].rows(t0 + timedelta(minutes=1)))
        t0 += timedelta(minutes=5)
    write_jsonl(os.path.join(HERE, "cases.jsonl"), cases)
    write_jsonl(os.path.join(HERE, "traces", "run-demo-generic-warehouse.jsonl"), gw_rows)
    write_jsonl(os.path.join(HERE, "traces", "run-demo-task-specific.jsonl"), ts_rows)
    print(f"{len(cases)} cases, {len(gw_rows)} + {len(ts_rows)} steps")


if __name__ == "__main__":
    main()
