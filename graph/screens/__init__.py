"""Versioned screening texts, kept apart from code (their version goes into the trace)."""
