"""Hand-off: questions people answer, their cases, staff rooms and office hours."""
