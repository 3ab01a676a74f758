"""Tallyline public API service."""

__version__ = "1.14.2"
