"""Reusable widgets: small, fixed-size, updated in place."""
