"""The browser playground served by `focal serve` at `/`: static files (`static/`) and the read
endpoints' work (`playground`): agents, sessions, the full trace of each turn, pending approvals, and
a session written back as a conversation-test case."""
