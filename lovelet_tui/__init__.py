"""lovelet."""
