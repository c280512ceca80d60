"""The trained detector OxEye ships with, and its model card."""
