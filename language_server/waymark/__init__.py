"""Waymark: safe file edits for editors and IDE-hosted coding agents."""

__version__ = "0.1.0"
