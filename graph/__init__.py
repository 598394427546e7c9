"""The LangGraph pipeline (guard → … → telemetry); wired in a later issue."""
