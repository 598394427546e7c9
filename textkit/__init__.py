"""The text toolkit: language utilities shared by storage and graph.

The ground floor: it imports nothing of ragbot.
"""
