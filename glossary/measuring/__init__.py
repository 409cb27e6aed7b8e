"""Measuring on the node: the pool of GPU workers (``pool``), the plan of what is stale (``plan``)."""

# How long a measuring run may take, in seconds, before the pool stops it: here, so that the command
# line's --help can show it without importing the pool (its processes, sockets and logs: issue 34).
DEFAULT_DEADLINE_S = 1800.0
