"""Tests of the storage room."""
