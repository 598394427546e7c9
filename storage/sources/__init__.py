"""Sources that sync into the knowledge base: a website or a folder, read again on a schedule."""
