"""Answering: what a delivery says back, the turns that can be stopped, votes and suggestions."""
