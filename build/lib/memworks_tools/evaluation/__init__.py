"""Evaluations: memworks measured on scenarios and data it did not write itself."""
