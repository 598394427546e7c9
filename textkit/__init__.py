"""The text toolkit: language utilities shared by storage and graph (the ground floor: imports nothing of ragbot)."""
