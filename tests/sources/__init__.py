"""Sources that sync: the web reader and the sync's rules."""
