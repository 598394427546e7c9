"""Tests of the textkit room."""
