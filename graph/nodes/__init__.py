"""One module per graph node; each node returns only the state keys it changes."""
