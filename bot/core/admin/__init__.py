"""Administration: commands, uploads and their jobs, API keys, reports and retention."""
