"""The composition root: builds the long-lived parts of a process and starts what serves."""
