"""The LangGraph pipeline (guard → … → telemetry); graph.builder wires it."""
