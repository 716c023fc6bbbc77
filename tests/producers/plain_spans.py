"""Spans of a service that is no agent (an HTTP handler and a database query), from the
real OpenTelemetry SDK, for the importer's "no steps" error."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import otel_setup  # noqa: E402

provider = otel_setup.setup("billing-api", "plain", sys.argv[1])
from opentelemetry import trace  # noqa: E402

tracer = trace.get_tracer("billing")
with tracer.start_as_current_span("GET /invoices", attributes={"http.request.method": "GET", "url.path": "/invoices"}):
    with tracer.start_as_current_span("SELECT invoices", attributes={"db.system.name": "postgresql"}):
        pass
provider.shutdown()
