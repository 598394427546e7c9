"""Telemetry: Langfuse traces and scores, pseudonymous ids, quiet export failures."""

from bot.telemetry.pseudonyms import Pseudonyms, load_pseudonyms
from bot.telemetry.tracer import Telemetry, TurnTrace

__all__ = ["Pseudonyms", "Telemetry", "TurnTrace", "load_pseudonyms"]
