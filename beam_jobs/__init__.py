"""Runnable Beam jobs."""
