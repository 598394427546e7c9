"""The HTTP API and the web chat: a third platform adapter over the serving core."""
