"""Load tests (Locust) and the service benchmark; see docs/performance.md."""
