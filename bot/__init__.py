"""ragbot: answers questions from an organisation's own documents."""
