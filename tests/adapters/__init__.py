"""Tests of the adapters room."""
