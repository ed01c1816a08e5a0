"""Reusable pieces of the clean-HTML job: reading archives, decoding, extraction, writing."""
