"""One module per graph node; each node returns only the state keys it changes.

graph.nodes.recording adds every node's time and decision-path entry.
"""
