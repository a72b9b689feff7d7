"""Helpers every stage shares: atomic writes, digests, and the width of CJK text."""
