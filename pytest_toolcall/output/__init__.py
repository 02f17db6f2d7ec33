"""What the kit writes: the CI reports (``report``: JSON, Markdown, badge, compat page) and the
cassettes of live traffic (``cassettes``: record, redact, replay)."""
