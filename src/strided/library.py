"""strided.library (placeholder)."""
