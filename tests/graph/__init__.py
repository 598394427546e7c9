"""Tests of the graph room."""
