"""Tests of the service room."""
